/**
 * Refuses arguments a kota_* tool does not know. pi validates a call against the tool's schema but
 * lets unknown keys through, so `kota_impact({ files: [...] })` (instead of `files_to_modify`) would
 * run with no files and answer "Risk: LOW": a wrong answer that looks right. The model gets an error
 * naming the valid arguments, and the likely one for a close misspelling.
 */
import type { TSchema } from "typebox";

/** Unknown names listed in one error; the rest are counted. */
const MAX_LISTED = 5;
/** Characters of an unknown name shown (a hostile name can be megabytes long). */
const MAX_NAME_CHARS = 40;
/** Names longer than this get no suggestion (the edit distance stays cheap). */
const MAX_COMPARED_CHARS = 64;

type ObjectSchema = { type?: unknown; properties?: Record<string, TSchema> };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const objectProperties = (schema: unknown): Record<string, TSchema> | undefined => {
  const s = schema as ObjectSchema | undefined;
  return s && s.type === "object" && isRecord(s.properties) ? s.properties : undefined;
};

/** Levenshtein distance of two short strings (both at most {@link MAX_COMPARED_CHARS}). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

/** Valid names close to `name`: a small edit distance, or one a prefix of the other (`files` -> `files_to_modify`). */
export function closeNames(name: string, valid: readonly string[]): string[] {
  if (name.length > MAX_COMPARED_CHARS || name.length < 2) return [];
  const lower = name.toLowerCase();
  const limit = Math.max(1, Math.floor(name.length / 3));
  return valid.filter((v) => {
    const candidate = v.toLowerCase();
    if (distance(lower, candidate) <= limit) return true;
    return lower.length >= 3 && (candidate.startsWith(lower) || lower.startsWith(candidate));
  });
}

/** A name as the model sees it: JSON-quoted (control characters escaped) and cut. */
const shown = (name: string) => JSON.stringify(name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS)}…` : name);

const orList = (names: readonly string[]) => (names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`);

/**
 * The error text for the arguments in `args` that `schema` (a TypeBox object schema) does not
 * declare, walking into nested objects (`filters.glob`); undefined when every argument is known.
 */
export function unknownArgumentsText(toolName: string, schema: TSchema, args: Readonly<Record<string, unknown>>): string | undefined {
  const problems: string[] = [];
  let unknownCount = 0;
  const walk = (props: Record<string, TSchema>, value: Readonly<Record<string, unknown>>, prefix: string) => {
    const valid = Object.keys(props);
    for (const key of Object.keys(value)) {
      const inner = props[key];
      if (inner === undefined || !Object.hasOwn(props, key)) {
        unknownCount++;
        if (problems.length >= MAX_LISTED) continue;
        const close = closeNames(key, valid);
        const where = prefix ? ` in ${prefix}` : "";
        const validText = valid.length ? `valid${where}: ${valid.join(", ")}` : `it takes no arguments${where}`;
        problems.push(`unknown argument ${shown(prefix ? `${prefix}.${key}` : key)} (${validText})${close.length ? `; did you mean ${orList(close)}?` : ""}`);
        continue;
      }
      const nested = objectProperties(inner);
      const v = value[key];
      if (nested && isRecord(v)) walk(nested, v, prefix ? `${prefix}.${key}` : key);
    }
  };
  const top = objectProperties(schema) ?? {};
  walk(top, args, "");
  if (!problems.length) return undefined;
  const more = unknownCount > problems.length ? `; and ${unknownCount - problems.length} more unknown argument(s)` : "";
  const text = `${toolName}: ${problems.join("; ")}${more}`;
  return text.endsWith("?") ? text : `${text}.`;
}
