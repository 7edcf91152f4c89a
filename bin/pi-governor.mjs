#!/usr/bin/env node
// Runs the TypeScript CLI directly (jiti), the same way pi loads this package's extensions.
// `typebox` maps to a stand-in (cli/typebox-json.ts): pi hands typebox to extensions, not to a
// shell command, and a runtime-only install (`npm ci --omit=dev`) has none.
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
let createJiti;
try {
  ({ createJiti } = await import("jiti"));
} catch (error) {
  // The one dependency cli/main.ts cannot name itself (see missingModuleMessage there).
  process.stderr.write(
    `pi-governor: the module "jiti" is not installed (${String(error?.message ?? error).split("\n", 1)[0]}). Fix: run \`npm ci --omit=dev\` in ${packageDir} (pi-governor's runtime dependencies), or reinstall the package.\n`,
  );
  // 3: the command could not run (as for a store it cannot read); 2 is kept for a wrong argument.
  process.exit(3);
}
const jiti = createJiti(import.meta.url, { alias: { typebox: fileURLToPath(new URL("../cli/typebox-json.ts", import.meta.url)) } });
const { main } = await jiti.import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
