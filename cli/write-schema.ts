import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliCommand } from "../core/index.ts";
import { configMarkdown } from "./config-doc.ts";
import { configJsonSchema } from "../core/config/json-schema.ts";

/** Where `npm run schema` writes by default: docs/pi-governor.schema.json in this package. */
export const DEFAULT_SCHEMA_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../docs/pi-governor.schema.json");
/** The generated reference beside it. */
export const CONFIG_DOC_PATH = resolve(dirname(DEFAULT_SCHEMA_PATH), "config.md");

/**
 * `pi-governor schema [out.json]`: writes the JSON Schema of the config file for every shipped plugin
 * (and, without an argument, the generated reference docs/config.md).
 */
export const run: CliCommand = async (argv, io) => {
  if (argv.length > 1 || argv[0]?.startsWith("-")) {
    io.err("usage: pi-governor schema [out.json]\n");
    return 2;
  }
  const { presets } = await import("../presets/index.ts");
  const schema = configJsonSchema(presets.flatMap((p) => p.plugins()), presets.map((p) => p.name));
  const out = resolve(argv[0] ?? DEFAULT_SCHEMA_PATH);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(schema, null, 2)}\n`);
  io.out(`wrote ${out} (${Object.keys(schema.properties as object).length - 3} plugin sections)\n`);
  if (!argv[0]) {
    writeFileSync(CONFIG_DOC_PATH, configMarkdown(schema));
    io.out(`wrote ${CONFIG_DOC_PATH}\n`);
  }
  return 0;
};
