import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliCommand } from "../lib/cli-command/index.ts";
import { parseCommandArgs } from "../lib/cli-command/index.ts";
import { configMarkdown } from "./config-doc.ts";
import { configJsonSchema } from "../host/config/json-schema.ts";

/** The repository's copy of the schema (what `npm run schema` writes and a test keeps current). */
export const DEFAULT_SCHEMA_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../docs/pi-governor.schema.json");
/** The generated reference beside it. */
export const CONFIG_DOC_PATH = resolve(dirname(DEFAULT_SCHEMA_PATH), "config.md");

const USAGE = `usage: pi-governor schema [out.json] [--doc config.md]

Prints the JSON Schema of the config file (every shipped plugin's section) on stdout, or writes it
to out.json. Point your editor at it with "$schema" in ~/.pi/agent/pi-governor.json.

  --doc file  also write the generated Markdown reference of every key to this file
  -h, --help  this text
`;

/**
 * `pi-governor schema [out.json] [--doc config.md]`: the JSON Schema of the config file, on stdout
 * or in a named file; `--doc` also writes the Markdown reference. Nothing is written inside the
 * installed package unless a path says so (`npm run schema` passes the repository's docs/ paths).
 */
export const run: CliCommand = async (argv, io) => {
  const parsed = parseCommandArgs(argv, { doc: { type: "string" } }, USAGE, io, { maxPositionals: 1 });
  if (typeof parsed === "number") return parsed;
  const { presets } = await import("../presets/index.ts");
  const schema = configJsonSchema(
    presets.flatMap((p) => p.plugins()),
    presets.map((p) => p.name),
  );
  const text = `${JSON.stringify(schema, null, 2)}\n`;
  const target = parsed.positionals[0];
  const written: string[] = [];
  if (target) {
    const out = resolve(target);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
    written.push(`wrote ${out} (${Object.keys(schema.properties as object).length - 3} plugin sections)`);
  } else io.out(text);
  if (parsed.values.doc) {
    const doc = resolve(parsed.values.doc);
    mkdirSync(dirname(doc), { recursive: true });
    writeFileSync(doc, configMarkdown(schema));
    written.push(`wrote ${doc}`);
  }
  // With the schema on stdout, progress goes to stderr so `schema > file.json` stays valid JSON.
  if (written.length) (target ? io.out : io.err)(`${written.join("\n")}\n`);
  return 0;
};
