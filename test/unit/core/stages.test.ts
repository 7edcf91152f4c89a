import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect } from "vitest";
import { itWithSqlite } from "../../helpers/sqlite-available.ts";
import { createGovernor } from "pi-governor/host";
import { kotaPreset } from "../../../presets/kota/index.ts";

const dir = mkdtempSync(join(tmpdir(), "gov-stages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The run order of every tap of the default preset, each plugin switched on (telemetry, chaos, the
 * repeated-call wrapper and pins are off by default). A change of a stage constant that reorders any
 * plugin fails here; equal stages keep apply order, so names (not numbers) are what is pinned.
 */
const KOTA_TAP_ORDER = {
  toolCall: [
    "governor:telemetry",
    "governor:execution-log",
    "governor:redact",
    "governor:policies",
    "governor:chaos",
    "governor:breaker",
    "governor:timeout",
    "governor:retry",
    "governor:telemetry",
    "governor:timeout",
    "governor:budget",
    "governor:chaos",
  ],
  toolGate: ["governor:policies", "governor:breaker"],
  toolResult: ["governor:redact", "governor:budget", "governor:blobs", "governor:recall", "governor:prune", "governor:telemetry"],
  // prune restores its context edits (pi 0.87+) first; fold captures the raw list, prune keeps its
  // input, prunes and keeps its output, fold folds and nudges.
  context: [
    "governor:prune",
    "governor:blobs",
    "governor:telemetry",
    "governor:fold",
    "governor:prune",
    "governor:prune",
    "governor:prune",
    "governor:fold",
    "governor:recall",
    "governor:telemetry",
  ],
  contextEdits: ["governor:prune"],
  beforeAgentStart: ["governor:auto-context"],
  cacheWarming: ["governor:prune"],
  sessionStart: ["governor:telemetry", "governor:kota", "governor:blobs", "governor:recall", "governor:chaos"],
  sessionShutdown: [
    "governor:chaos",
    "governor:execution-log",
    "governor:telemetry",
    "governor:policies",
    "governor:kota",
    "governor:blobs",
    "governor:prune",
    "governor:recall",
  ],
  runStart: ["governor:policies"],
  turnStart: ["governor:policies"],
  turnEnd: [],
  event: ["governor:host", "governor:execution-log", "governor:telemetry", "governor:breaker", "governor:policies"],
};

describe("the default kota preset's taps per hook", () => {
  itWithSqlite("run in the pinned order", async () => {
    const gov = await createGovernor({
      preset: kotaPreset,
      cwd: dir,
      agentDir: dir,
      env: {},
      layers: [
        {
          kind: "global",
          source: join(dir, "pi-governor.json"),
          data: {
            telemetry: { enabled: true },
            chaos: { enabled: true },
            prune: { pinTools: ["kota_search"] },
            policies: { repeatedCalls: { enabled: true } },
          },
        },
      ],
    });
    expect(gov.problems()).toEqual([]);
    const order = Object.fromEntries(Object.entries(gov.pipeline.describe()).map(([hook, taps]) => [hook, taps.map((t) => t.name)]));
    expect(order).toEqual(KOTA_TAP_ORDER);
    await gov.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
  });
});
