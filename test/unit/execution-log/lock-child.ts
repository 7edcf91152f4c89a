/**
 * Runs the lock scenario (both variants) in this process and prints one JSON line, so the execution
 * log and `pi-governor stats` can be tested under another Node: `node24 --import tsx test/unit/execution-log/lock-child.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../cli/main.ts";
import { runLockScenario } from "./lock-scenario.ts";

/** `pi-governor stats --json` on the scenario's log: the calls it counts, or the error it printed. */
async function statsCalls(path: string): Promise<number | string> {
  let out = "";
  let err = "";
  const code = await main(["stats", "--db", path, "--json"], { out: (t) => void (out += t), err: (t) => void (err += t) });
  if (code !== 0) return `exit ${code}: ${err}`;
  return (JSON.parse(out) as { tools: Array<{ calls: number }> }).tools.reduce((n, t) => n + t.calls, 0);
}

const results = [];
for (const lockBeforeFirstWrite of [false, true]) {
  const dir = mkdtempSync(join(tmpdir(), "gov-exec-lock-child-"));
  try {
    const result = await runLockScenario(dir, lockBeforeFirstWrite);
    results.push({ lockBeforeFirstWrite, ...result, statsCalls: await statsCalls(join(dir, "exec.db")) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`${JSON.stringify({ node: process.versions.node, results })}\n`);
