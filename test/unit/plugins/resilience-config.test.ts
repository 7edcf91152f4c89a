import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itWithSqlite } from "../../helpers/sqlite-available.ts";
import { type ConfigLayer, createGovernor } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { breaker } from "../../../plugins/circuit-breaker/index.ts";
import { executionLog } from "../../../plugins/execution-log/index.ts";
import { retry } from "../../../plugins/retry/index.ts";
import { timeout } from "../../../plugins/timeout/index.ts";
import { ManualClock } from "pi-governor/testing";
import { toolsPlugin } from "pi-governor/testing";
import { never, sysError } from "../../helpers/wrapper-pipeline.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gov-res-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

let attempts = 0;
const tools = toolsPlugin([
  { name: "hang", annotations: { readOnlyHint: true }, execute: () => never() },
  {
    name: "flaky",
    execute: async () => {
      attempts++;
      throw sysError("ECONNRESET");
    },
  },
]);

async function governor(data: Record<string, unknown>) {
  attempts = 0;
  const clock = new ManualClock();
  const preset = definePreset({ name: "t", description: "", plugins: () => [executionLog(), breaker(), retry(), timeout(), tools()] });
  // The user's global file: retry.tools is a trusted key, which a project file may not set.
  const layers: ConfigLayer[] = [{ kind: "global", source: join(dir, "pi-governor.json"), data }];
  const gov = await createGovernor({ preset, cwd: dir, agentDir: dir, env: {}, clock, layers });
  return { gov, clock };
}

describe("resilience config from the config file", () => {
  it("applies per-tool timeouts and retry allowlists from the file", async () => {
    const { gov, clock } = await governor({
      executionLog: { enabled: false },
      timeout: { perTool: { hang: 50 } },
      retry: { tools: ["flaky"], maxAttempts: 4, baseDelayMs: 0 },
    });
    expect(gov.problems()).toEqual([]);
    const hung = gov.pipeline.callTool("hang", {});
    await clock.advance(50);
    expect(await hung).toMatchObject({ status: "TIMEOUT_EXCEEDED", timeoutMs: 50 });
    const flaky = await clock.runUntilSettled(gov.pipeline.callTool("flaky", {}));
    expect(flaky.retries).toBe(3);
    expect(attempts).toBe(4);
  });

  it("switches each stage off with enabled: false", async () => {
    const { gov } = await governor({ timeout: { enabled: false }, retry: { enabled: false }, breaker: { enabled: false }, executionLog: { enabled: false } });
    expect(gov.pipeline.describe().toolCall ?? []).toEqual([]);
  });

  itWithSqlite("lists the stages in run order when on: log, breaker, total deadline, retry, attempt timeout", async () => {
    const { gov } = await governor({});
    expect((gov.pipeline.describe().toolCall ?? []).map((t) => `${t.name}@${t.stage}`)).toEqual([
      "governor:execution-log@100",
      "governor:breaker@200",
      "governor:timeout@250",
      "governor:retry@300",
      "governor:timeout@400",
    ]);
  });

  it("reports a misspelt key with its path instead of failing", async () => {
    const { gov } = await governor({ retry: { maxAtempts: 2 }, timeout: { defaultMs: -1 } });
    const problems = gov.problems().join("\n");
    expect(problems).toMatch(/retry\.maxAtempts/);
    expect(problems).toMatch(/timeout\.defaultMs/);
  });
});
