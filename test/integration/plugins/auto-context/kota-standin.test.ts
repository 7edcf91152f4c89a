/**
 * autoContext through the real stand-in: briefing content and size, the cache per path set and HEAD,
 * asking to index, more than 3 paths, and that a dead or slow KotaDB never breaks the prompt.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset, type Governor, type UiBridge } from "pi-governor";
import { autoContext } from "../../../../plugins/auto-context/index.ts";
import { kota } from "../../../../plugins/kota/index.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { callLogIn, standinCalls, standinKotaConfig } from "../../../helpers/kota-standin.ts";

let repo: FixtureRepo;
let work: string;
let governor: Governor | undefined;

function ui(answer = true): UiBridge & { notes: string[]; confirms: number } {
  const state = { notes: [] as string[], confirms: 0 };
  return Object.assign(state, {
    hasUI: true,
    notify: (m: string) => void state.notes.push(m),
    setStatus: () => {},
    confirm: async () => {
      state.confirms++;
      return answer;
    },
  });
}

async function build(kotaExtra: Record<string, unknown>, env: Record<string, string> = {}, ac: Record<string, unknown> = {}): Promise<Governor> {
  governor = await createGovernor({
    preset: definePreset({ name: "t", description: "", commandRoot: "kota", plugins: () => [kota(), autoContext()] }),
    cwd: repo.root,
    agentDir: join(work, "agent"),
    layers: [
      {
        kind: "global",
        source: "test",
        data: {
          kota: standinKotaConfig({ KOTADB_STANDIN_LOG: callLogIn(work), ...env }, { autoContext: "onPaths", ...kotaExtra }),
          autoContext: { timeoutMs: 30_000, ...ac },
        },
      },
    ],
  });
  return governor;
}

const prompt = (g: Governor, text: string) => g.pipeline.hooks.beforeAgentStart.run([], { prompt: text, cwd: repo.root, sessionId: "s" });

beforeEach(() => {
  repo = createFixtureRepo();
  work = mkdtempSync(join(tmpdir(), "kota-ac-"));
});
afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo.root, reason: "quit" });
  governor = undefined;
  repo.remove();
  rmSync(work, { recursive: true, force: true });
});

describe("autoContext over the stand-in", () => {
  it("asks to index, then injects a small briefing, cached per path set and HEAD", async () => {
    const g = await build({});
    const bridge = ui(true);
    g.attachSession("s", bridge);
    const [first] = await prompt(g, "what breaks if I change src/utils/math.ts?");
    expect(bridge.confirms).toBe(1);
    expect(first!.text).toMatch(/^\[autoContext\] KotaDB briefing for src\/utils\/math.ts \(4 dependents\)/);
    expect(first!.text).toMatch(/Top dependents: src\/api\/handlers.ts, src\/index.ts, src\/utils\/format.ts/);
    expect(first!.text).toMatch(/Suggested tests: tests\/math.test.ts/);
    expect(Buffer.byteLength(first!.text)).toBeLessThanOrEqual(1_500);

    const queries = () => standinCalls(callLogIn(work)).filter((c) => c.name === "generate_task_context").length;
    expect(queries()).toBe(1);
    const [again] = await prompt(g, "and src/utils/math.ts once more");
    expect(again!.text).toBe(first!.text);
    expect(queries()).toBe(1); // cached
    repo.commit("src/new.ts", "export const x = 1;\n");
    await prompt(g, "src/utils/math.ts after a commit");
    expect(queries()).toBe(2); // HEAD moved: new key
  });

  it("does nothing when off, without paths, or with more than 3 paths (and says why)", async () => {
    const g = await build({ autoContext: "off" });
    g.attachSession("s", ui());
    expect(await prompt(g, "change src/utils/math.ts")).toEqual([]);
    await governor!.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo.root, reason: "quit" });

    const g2 = await build({ confirmIndex: false });
    const bridge = ui();
    g2.attachSession("s", bridge);
    expect(await prompt(g2, "hello, nothing here; see https://x.io/src/index.ts")).toEqual([]);
    expect(await prompt(g2, "src/index.ts src/config.ts src/utils/math.ts src/utils/format.ts")).toEqual([]);
    expect(bridge.notes.at(-1)).toMatch(/names 4 files.*kota_task_context/);
  });

  it("a missing KotaDB or a slow index never blocks or breaks the prompt", async () => {
    const g = await build({ command: join(work, "no-such-kotadb") });
    g.attachSession("s", ui());
    expect(await prompt(g, "change src/utils/math.ts")).toEqual([]);
    await governor!.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo.root, reason: "quit" });

    const g2 = await build({ confirmIndex: false }, { KOTADB_STANDIN_INDEX_DELAY_MS: "20000" }, { indexWaitMs: 300 });
    g2.attachSession("s", ui());
    const started = performance.now();
    expect(await prompt(g2, "change src/utils/math.ts")).toEqual([]);
    // The index takes 20 s; the prompt must not wait for it (a generous bound: start-up under load is slow).
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('"always" adds a one-line index note once per session and HEAD when no file is named; autoContext.mode overrides kota.autoContext', async () => {
    const g = await build({ autoContext: "off", confirmIndex: false }, {}, { mode: "always" });
    g.attachSession("s", ui());
    const [note] = await prompt(g, "hello there");
    expect(note!.text).toBe("[autoContext] This repository is not indexed by KotaDB yet; kota_index indexes it (the user is asked first).");
    expect(await prompt(g, "and again")).toEqual([]); // once per session and HEAD
    const [brief] = await prompt(g, "now src/config.ts");
    expect(brief!.text).toMatch(/^\[autoContext\] KotaDB briefing for src\/config.ts \(\d+ dependents\)/);
  });
});
