#!/usr/bin/env node
// Runs the TypeScript CLI directly (jiti), the same way pi loads this package's extensions.
// `typebox` maps to a stand-in (cli/typebox-json.ts): pi hands typebox to extensions, not to a
// shell command, and a runtime-only install (`npm ci --omit=dev`) has none.
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url, { alias: { typebox: fileURLToPath(new URL("../cli/typebox-json.ts", import.meta.url)) } });
const { main } = await jiti.import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
