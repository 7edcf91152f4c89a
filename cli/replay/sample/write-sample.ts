/**
 * Regenerates the bundled replay sample: `npx tsx cli/replay/sample/write-sample.ts`.
 * 34 turns, deterministic (seed 7), with idle gaps (some prompts after minutes or hours away), kept under 1 MB.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sessionJsonl } from "./generate.ts";

const out = join(dirname(fileURLToPath(import.meta.url)), "session.jsonl");
const text = sessionJsonl({ turns: 34, seed: 7, idleGaps: true });
writeFileSync(out, text);
process.stdout.write(`wrote ${out} (${(text.length / 1024).toFixed(0)} KB)\n`);
