/**
 * `npm run soak`: the chaos soak at full size (default 10,000 calls; `-- --calls N --concurrency C
 * --seed S` to change it), printing the figures as JSON. The suite runs the same soak at ~1,000
 * calls (test/integration/plugins/chaos/chaos-soak.test.ts). Exits 1 when a figure is off target.
 */
import { parseArgs } from "node:util";
import { useHermeticHomeUntilExit } from "../helpers/hermetic-home.ts";
import { runSoak } from "../integration/plugins/chaos/soak.ts";

// The soak builds whole presets: their recall index, blobs and logs go to a throwaway home.
useHermeticHomeUntilExit();

const { values } = parseArgs({
  options: { calls: { type: "string", default: "10000" }, concurrency: { type: "string", default: "8" }, seed: { type: "string", default: "20261123" } },
});
const report = await runSoak({
  calls: Number(values.calls),
  concurrency: Number(values.concurrency),
  seed: Number(values.seed),
  log: (line) => console.error(line),
});
console.log(JSON.stringify(report, null, 2));
const ok =
  report.resolved === report.calls &&
  report.unhandledRejections === 0 &&
  report.liveTimers === 0 &&
  report.extraActiveResources.length === 0 &&
  report.liveChildren === 0 &&
  report.osChildren === 0 &&
  report.serverPidsAlive === 0 &&
  report.repeatedNonIdempotent === 0;
process.exitCode = ok ? 0 : 1;
