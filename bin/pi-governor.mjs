#!/usr/bin/env node
// Runs the TypeScript CLI directly (jiti), the same way pi loads this package's extensions.
import { createJiti } from "jiti";

const jiti = createJiti(import.meta.url);
const { main } = await jiti.import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
