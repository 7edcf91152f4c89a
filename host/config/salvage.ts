/**
 * Validates one config section and keeps what is valid: a wrong value drops that key only (at any
 * depth), never the section, and each dropped key becomes a problem that names the key path, the
 * value given and what is allowed.
 */
import { z } from "zod";
import { didYouMean } from "../../lib/did-you-mean/index.ts";
import { isPlainObject } from "../../core/config/merge.ts";

/** A dropped key: dotted path inside the section and a user-facing message. */
export interface SalvageIssue {
  path: string;
  message: string;
}

/** The section's valid part (undefined when nothing could be kept) and what was dropped. */
export interface SalvageResult {
  data: Record<string, unknown> | undefined;
  issues: SalvageIssue[];
}

/** Rounds of drop-and-revalidate; each round removes at least one key, so this only bounds odd schemas. */
const MAX_ROUNDS = 50;
/** Longest quoted value in a message, in characters. */
const MAX_SHOWN = 60;

/** `value` as the user wrote it, shortened: `true`, `"x"`, `{"a":1}`. */
export function showValue(value: unknown): string {
  if (value === undefined) return "(missing)";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 3)}...` : text;
}

function orList(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}

const ARTICLE: Record<string, string> = {
  int: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  record: "an object",
};

/** What is wrong with `value` and what to write instead, from one zod issue. */
export function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  const given = showValue(value);
  switch (issue.code) {
    case "invalid_value":
      return `${given} is not allowed; use ${orList(issue.values)}`;
    case "invalid_type":
      if (value === undefined) return `is required (${ARTICLE[issue.expected] ?? issue.expected})`;
      return `${given} is not allowed; use ${ARTICLE[issue.expected] ?? issue.expected}`;
    case "too_big": {
      const unit = issue.origin === "array" || issue.origin === "set" ? " items" : issue.origin === "string" ? " characters" : "";
      return `${given} is too large; use ${issue.inclusive === false ? "less than" : "at most"} ${String(issue.maximum)}${unit}`;
    }
    case "too_small": {
      const unit = issue.origin === "array" || issue.origin === "set" ? " items" : issue.origin === "string" ? " characters" : "";
      return `${given} is too small; use ${issue.inclusive === false ? "more than" : "at least"} ${String(issue.minimum)}${unit}`;
    }
    case "invalid_format":
      return `${given} is not allowed; use ${issue.message}`;
    case "unrecognized_keys":
      return "unknown key; check the spelling (see docs/config.md)";
    case "invalid_key": {
      // A record's key (the path's last element) failed its own schema; its issues say what to write.
      const key = showValue(String(issue.path.at(-1) ?? ""));
      const inner = issue.issues[0];
      if (!inner) return `${key} is not allowed as a key`;
      return inner.code === "invalid_format" ? `${key} is not allowed as a key; use ${inner.message}` : `${key} is not allowed as a key (${inner.message})`;
    }
    default:
      return `${given} is not allowed (${issue.message})`;
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key as string];
  }
  return node;
}

/**
 * Removes the key at `path` from `root`. Lists are replaced whole by later layers, so a bad element
 * drops its list; a missing required key drops the object that lacks it. False when only the whole
 * section could go.
 */
function dropAt(root: Record<string, unknown>, path: readonly PropertyKey[]): boolean {
  const arrayAt = path.findIndex((k) => typeof k === "number");
  let keys = arrayAt >= 0 ? path.slice(0, arrayAt) : [...path];
  while (keys.length > 0) {
    const parent = valueAt(root, keys.slice(0, -1));
    const last = keys.at(-1) as string;
    if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
      delete parent[last];
      return true;
    }
    keys = keys.slice(0, -1);
  }
  return false;
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
}

/** The keys an object schema at `path` inside `schema` allows (through optional, default and nullable), for "did you mean". */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.ZodType | undefined = schema;
  const unwrap = (t: z.ZodType | undefined): z.ZodType | undefined => {
    for (let i = 0; i < 10 && t && (t instanceof z.ZodOptional || t instanceof z.ZodDefault || t instanceof z.ZodNullable); i++)
      t = (t as unknown as { unwrap(): z.ZodType }).unwrap();
    return t;
  };
  for (const key of path) {
    node = unwrap(node);
    node = node instanceof z.ZodObject ? (node.shape as Record<string, z.ZodType>)[String(key)] : undefined;
  }
  node = unwrap(node);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

/**
 * Parses `value` with `schema`, dropping each key zod rejects (and only it), until the rest parses.
 * `value` is not modified. Issue paths are relative to the section.
 */
export function parseSalvaging(schema: z.ZodType, value: unknown): SalvageResult {
  const issues: SalvageIssue[] = [];
  const current = copy(value);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const parsed = schema.safeParse(current);
    if (parsed.success) return { data: parsed.data as Record<string, unknown>, issues };
    if (!isPlainObject(current)) {
      for (const issue of parsed.error.issues)
        issues.push({ path: issue.path.map(String).join("."), message: describeIssue(issue, valueAt(current, issue.path)) });
      return { data: undefined, issues };
    }
    let dropped = false;
    for (const issue of parsed.error.issues) {
      const paths = issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const path of paths) {
        const inList = path.some((k) => typeof k === "number");
        const guess = issue.code === "unrecognized_keys" ? didYouMean(String(path.at(-1)), keysAt(schema, issue.path)) : "";
        issues.push({
          path: path.map(String).join("."),
          message: `${guess ? `unknown key${guess}` : describeIssue(issue, valueAt(current, path))}${inList ? " (the whole list is ignored)" : ""}`,
        });
        dropped = dropAt(current, path) || dropped;
      }
    }
    if (!dropped) return { data: undefined, issues };
  }
  return { data: undefined, issues };
}
