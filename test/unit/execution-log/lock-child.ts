/**
 * Runs the lock scenario (both variants) in this process and prints one JSON line, so the execution
 * log can be tested under another Node: `node24 --import tsx test/unit/execution-log/lock-child.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runLockScenario } from "./lock-scenario.ts";

const results = [];
for (const lockBeforeFirstWrite of [false, true]) {
  const dir = mkdtempSync(join(tmpdir(), "gov-exec-lock-child-"));
  try {
    results.push({ lockBeforeFirstWrite, ...(await runLockScenario(dir, lockBeforeFirstWrite)) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`${JSON.stringify({ node: process.versions.node, results })}\n`);
