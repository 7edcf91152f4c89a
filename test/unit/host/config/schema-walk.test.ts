/**
 * Walks every option of every plugin of every preset (presets/<name>/index.ts) and holds each to the
 * config trust rules: a key that names a path, a program, its arguments, environment or working
 * directory, or an endpoint is trusted (a project file cannot set it), every number has an upper
 * bound (a duration's stays far below what Node timers accept, 2^31-1 ms), and every string, list
 * and record (its keys too) has a size bound: a project file once set an 8 MiB label that was
 * copied into every execution-log row.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, type GovernorPlugin, type Preset } from "pi-governor";
import { boundedRecord } from "../../../../lib/config/index.ts";

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  maximum?: number;
  exclusiveMaximum?: number;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  propertyNames?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  description?: string;
};

/** Key names that say the value is a path, a program or its launch settings, or an endpoint. */
const SENSITIVE_NAME =
  /^(path|paths|dir|dirs|directory|file|files|folder|command|cmd|args|argv|env|environment|cwd|url|uri|endpoint|host|socket|program|executable|servers?)$|[a-z0-9](Path|Paths|Dir|Dirs|Directory|File|Files|Folder|Command|Cmd|Args|Argv|Env|Cwd|Url|URL|Uri|URI|Endpoint|Host|Socket|Program|Executable)$/;
/** Milliseconds per unit, by the key's name suffix and by the plural unit word in its description. */
const UNITS: Array<[RegExp, RegExp, number]> = [
  [/(Ms|Millis|Milliseconds)$/, /\bmilliseconds\b/, 1],
  [/(Seconds|Secs)$/, /\bseconds\b/, 1_000],
  [/Minutes$/, /\bminutes\b/, 60_000],
  [/Hours$/, /\bhours\b/, 3_600_000],
];
/** Node timers overflow past 2^31-1 ms (to a 1 ms timer); durations must stay a tenth of that. */
const MAX_TIMER_MS = Math.floor((2 ** 31 - 1) / 10);

interface Finding {
  path: string;
  problem: string;
}

function unitOf(name: string, description: string | undefined): number | undefined {
  for (const [suffix, , ms] of UNITS) if (suffix.test(name)) return ms;
  for (const [, word, ms] of UNITS) if (description && word.test(description)) return ms;
  return undefined;
}

function isScalarNonString(node: JsonSchema): boolean {
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  return types.length > 0 && types.every((t) => t === "number" || t === "integer" || t === "boolean");
}

/** Walks one JSON Schema node; `topKey` is the section's top-level key the node lives under. */
function walk(
  node: JsonSchema,
  path: string,
  name: string,
  description: string | undefined,
  topKey: string,
  trusted: ReadonlySet<string>,
  out: Finding[],
): void {
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.includes("number") || types.includes("integer")) {
    const max = node.maximum ?? node.exclusiveMaximum;
    if (max === undefined || max >= Number.MAX_SAFE_INTEGER) out.push({ path, problem: "number without an upper bound (add .max())" });
    else {
      const unit = unitOf(name, node.description ?? description);
      if (unit !== undefined && max * unit > MAX_TIMER_MS) out.push({ path, problem: `duration bound ${max} (x${unit} ms) exceeds ${MAX_TIMER_MS} ms` });
    }
  }
  if (types.includes("string") && node.maxLength === undefined && node.enum === undefined && node.const === undefined)
    out.push({ path, problem: "string without a length bound (add .max())" });
  if (types.includes("array") && node.maxItems === undefined && node.prefixItems === undefined)
    out.push({ path, problem: "list without a length bound (add .max())" });
  if (types.includes("object") && node.additionalProperties && typeof node.additionalProperties === "object") {
    if (node.maxProperties === undefined) out.push({ path, problem: "record without a bound on its keys (boundedRecord)" });
    if (node.propertyNames) walk(node.propertyNames, `${path}.<key name>`, name, description, topKey, trusted, out);
  }
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const childTop = topKey || key;
    // A number or a switch named like a path (maxPaths) counts or toggles; it cannot name a place.
    if (SENSITIVE_NAME.test(key) && !isScalarNonString(child) && !trusted.has(childTop))
      out.push({ path: `${path}.${key}`, problem: "names a path, program or endpoint but is not a trusted key" });
    // A key that removes stored data (its description starts "Retention:") decides for every project.
    if (/^(Trusted: .*?\. )?Retention:/.test(child.description ?? "") && !trusted.has(childTop))
      out.push({ path: `${path}.${key}`, problem: "deletes shared data (retention) but is not a trusted key" });
    walk(child, `${path}.${key}`, key, child.description ?? description, childTop, trusted, out);
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object")
    walk(node.additionalProperties, `${path}.<key>`, name, node.additionalProperties.description ?? description, topKey, trusted, out);
  const items = [...(Array.isArray(node.items) ? node.items : node.items ? [node.items] : []), ...(node.prefixItems ?? [])];
  for (const item of items) walk(item, `${path}[]`, name, item.description ?? description, topKey, trusted, out);
  for (const alt of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    walk(alt, path, name, alt.description ?? description, topKey, trusted, out);
}

/** Every rule a plugin's options break, as "section.key: problem" lines. */
function auditPlugin(plugin: GovernorPlugin<any>): string[] {
  const schema = z.toJSONSchema(plugin.schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const out: Finding[] = [];
  walk(schema, plugin.configKey, plugin.configKey, undefined, "", new Set(plugin.trustedKeys), out);
  return out.map((f) => `${f.path}: ${f.problem}`);
}

async function shippedPresets(): Promise<Preset[]> {
  const root = join(dirname(fileURLToPath(import.meta.url)), "../../../../presets");
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const found: Preset[] = [];
  for (const dir of dirs) {
    const module = (await import(join(root, dir, "index.ts"))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (value && typeof value === "object" && typeof (value as Preset).plugins === "function" && typeof (value as Preset).name === "string")
        found.push(value as Preset);
    }
  }
  return found;
}

describe("every shipped plugin's options", () => {
  it("finds the presets and their plugins", async () => {
    const presets = await shippedPresets();
    expect(presets.map((p) => p.name).sort()).toEqual(expect.arrayContaining(["kota", "lean", "mcp"]));
    const keys = new Set(presets.flatMap((p) => p.plugins().map((plugin) => plugin.configKey)));
    for (const key of ["executionLog", "blobs", "budget", "prune", "kota", "mcp", "retry", "timeout", "breaker", "autoContext", "telemetry"])
      expect(keys).toContain(key);
  });

  it("trust paths, programs and endpoints, and bound every number and duration", async () => {
    const findings: string[] = [];
    for (const preset of await shippedPresets()) {
      for (const plugin of preset.plugins()) findings.push(...auditPlugin(plugin).map((f) => `${preset.name}: ${f}`));
    }
    expect(findings).toEqual([]);
  });
});

describe("the audit itself", () => {
  const plugin = (schema: z.ZodObject, defaults: Record<string, unknown>, trustedKeys: string[] = []) =>
    definePlugin({ name: "t:audit", configKey: "t", description: "", schema, defaults, trustedKeys, apply() {} } as never)() as GovernorPlugin<any>;

  it("catches a new path, command, endpoint, url or dir key that is not trusted, at any depth", () => {
    const p = plugin(
      z.object({
        fooPath: z.string(),
        command: z.string(),
        endpoint: z.string(),
        url: z.string(),
        cacheDir: z.string(),
        nested: z.object({ baseURL: z.string() }),
        servers: z.record(z.string(), z.object({ cwd: z.string() })),
        maxPaths: z.number().int().max(3),
        keepDays: z.number().max(30).describe("Retention: older entries are removed"),
      }),
      { fooPath: "", command: "", endpoint: "", url: "", cacheDir: "", nested: { baseURL: "" }, servers: {}, maxPaths: 1, keepDays: 1 },
    );
    expect(auditPlugin(p).filter((f) => f.includes("names a path"))).toEqual([
      "t.fooPath: names a path, program or endpoint but is not a trusted key",
      "t.command: names a path, program or endpoint but is not a trusted key",
      "t.endpoint: names a path, program or endpoint but is not a trusted key",
      "t.url: names a path, program or endpoint but is not a trusted key",
      "t.cacheDir: names a path, program or endpoint but is not a trusted key",
      "t.nested.baseURL: names a path, program or endpoint but is not a trusted key",
      "t.servers: names a path, program or endpoint but is not a trusted key",
      "t.servers.<key>.cwd: names a path, program or endpoint but is not a trusted key",
    ]);
    expect(auditPlugin(p)).toContain("t.keepDays: deletes shared data (retention) but is not a trusted key");
    const trusted = plugin(
      z.object({ dbPath: z.string(), servers: z.record(z.string(), z.object({ env: z.record(z.string(), z.string()) })) }),
      { dbPath: "", servers: {} },
      ["dbPath", "servers"],
    );
    expect(auditPlugin(trusted).filter((f) => !f.includes("bound"))).toEqual([]);
  });

  it("catches an unbounded number at any depth (records and lists of numbers too) and a duration past the timer limit", () => {
    const p = plugin(
      z.object({
        count: z.number().int().min(0),
        ratio: z.number(),
        caps: z.record(z.string(), z.number().min(0)),
        steps: z.array(z.number().max(5)).describe("x"),
        ladder: z.array(z.record(z.string(), z.union([z.string(), z.number()]))),
        sweepIntervalMinutes: z.number().max(1e9),
        perTool: z.record(z.string(), z.number().int().max(1e10)).describe("Limits in milliseconds"),
        ok: z.number().int().max(1000),
      }),
      { count: 0, ratio: 0, caps: {}, steps: [], ladder: [], sweepIntervalMinutes: 1, perTool: {}, ok: 1 },
    );
    expect(auditPlugin(p).filter((f) => /number|duration/.test(f))).toEqual([
      "t.count: number without an upper bound (add .max())",
      "t.ratio: number without an upper bound (add .max())",
      "t.caps.<key>: number without an upper bound (add .max())",
      "t.ladder[].<key>: number without an upper bound (add .max())",
      `t.sweepIntervalMinutes: duration bound 1000000000 (x60000 ms) exceeds ${MAX_TIMER_MS} ms`,
      `t.perTool.<key>: duration bound 10000000000 (x1 ms) exceeds ${MAX_TIMER_MS} ms`,
    ]);
  });

  it("catches an unbounded string, list or record (and record key names) at any depth", () => {
    const p = plugin(
      z.object({
        label: z.string(),
        names: z.array(z.string().max(10)),
        vars: z.record(z.string(), z.string().max(10)),
        nested: z.object({ hint: z.string().optional() }),
        ok: z.string().max(10),
        mode: z.enum(["a", "b"]),
        okList: z.array(z.string().max(10)).max(5),
        okRecord: boundedRecord(z.string().max(10), z.number().max(1), 5),
      }),
      { label: "", names: [], vars: {}, nested: {}, ok: "", mode: "a", okList: [], okRecord: {} },
    );
    expect(auditPlugin(p)).toEqual([
      "t.label: string without a length bound (add .max())",
      "t.names: list without a length bound (add .max())",
      "t.vars: record without a bound on its keys (boundedRecord)",
      "t.vars.<key name>: string without a length bound (add .max())",
      "t.nested.hint: string without a length bound (add .max())",
    ]);
  });

  it("boundedRecord refuses more keys than its bound", () => {
    const r = boundedRecord(z.string().max(10), z.number(), 2);
    expect(r.safeParse({ a: 1, b: 2 }).success).toBe(true);
    expect(r.safeParse({ a: 1, b: 2, c: 3 }).success).toBe(false);
  });
});
