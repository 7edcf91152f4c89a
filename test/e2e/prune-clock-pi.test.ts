/**
 * Pruning that knows the clock, in a real pi session (SDK, faux model): the user's pauses come from
 * a faked `Date` (pi stamps every message with it), so a session "an hour later" runs at once; pi's
 * cache warming timer runs in real time, so its model declares a lifetime of 11 seconds (pi warms
 * only lifetimes above ten seconds: one refresh a second).
 *
 * - Steps land on the requests that find the cache cold (the model declares no lifetime: 300 s), on
 *   every pi line; with `cacheLifetime: "off"` the same requests wait, as before. A session resumed
 *   the next day (a new pi, the same session file) takes the waiting steps on its first request.
 * - pi lines with cache warming: pi's `cache_warming_decision` is answered. With a step pending at the next prompt the
 *   refresh is stopped (pi's status says an extension stopped it) and the request after the pause
 *   takes the step on the cold cache; with nothing pending pi's decision stands, its refreshes are
 *   recorded, and the request after them is warm although it comes more than the lifetime after the
 *   last reply.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, type FauxResponseStep, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type AgentMessageLike, definePlugin, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { isPlaceholder, prune } from "../../plugins/prune/index.ts";
import { piHost } from "../helpers/pi-host.ts";
import { piTestScope, type PiTestSession } from "../helpers/pi-session.ts";

/** pi ships its cache warmer (0.87 and later; idle warming by default since 1.5.1). Read from pi's files, not its version. */
const piHasCacheWarming = existsSync(join(piHost.codingAgentDir, "dist/core/cache-warmer.js"));
const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 5, 9, 0, 0);

type Report = { request: number; stepped: boolean; cold?: boolean; placeholders: number };

/** The prune plugin and an observer of its events (what each request did, each warming answer). */
function extension(cwd: string, prune_: Record<string, unknown>) {
  const reports: Report[] = [];
  const answers: Array<{ action: string; hostAction: string; keptShare: number }> = [];
  const observer = definePlugin({
    name: "test:clock",
    configKey: "testClock",
    description: "records prune's events",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.event.tap("test:clock", (e) => {
        if (e.type !== "custom") return;
        if (e.name === "context_pruned") reports.push(e.data as Report);
        if (e.name === "cache_warming_answered") answers.push(e.data as (typeof answers)[number]);
      });
    },
  });
  const preset = definePreset({ name: "e2e-clock", description: "", plugins: () => [prune(), observer()] });
  const layers = [{ kind: "project" as const, source: "test", data: { prune: { adaptive: false, ...prune_ } } }];
  return { factory: createExtension(preset, { governorOptions: { layers, cwd } }), reports, answers };
}

/**
 * The model's script: per turn a `read` of m<t>.ts and an answer. pi's cache warming re-sends the last
 * request with a one-token cap; those refreshes get an empty answer and leave the script alone.
 */
function script(turns: number, refreshes: { count: number }): FauxResponseStep[] {
  // Built when the model answers, so each reply is stamped with the (faked) time of its request, as a provider's is.
  const replies: Array<() => ReturnType<typeof fauxAssistantMessage>> = [];
  for (let t = 1; t <= turns; t++) {
    replies.push(() => fauxAssistantMessage([fauxText(`Reading m${t}.`), fauxToolCall("read", { path: `m${t}.ts` })], { stopReason: "toolUse" }));
    replies.push(() => fauxAssistantMessage([fauxText(`m${t} read.`)]));
  }
  const step: FauxResponseStep = (_context, options) => {
    if ((options as { maxTokens?: number } | undefined)?.maxTokens === 1) {
      refreshes.count++;
      return fauxAssistantMessage("");
    }
    return (replies.shift() ?? (() => fauxAssistantMessage("(no more script)")))();
  };
  return Array.from({ length: turns * 2 + 200 }, () => step);
}

/** The placeholders in the last context the model saw. */
const placeholders = (pi: PiTestSession) =>
  (pi.contexts.at(-1) as AgentMessageLike[]).filter((m) => m.role === "toolResult" && isPlaceholder((m.content as Array<{ text?: string }>)[0]?.text ?? ""))
    .length;

/**
 * The model's declared cache lifetime and prices, as a models.json `modelOverrides` entry sets them
 * for a real model, and pi's idle warming (the default since pi 1.5.1; 0.87 warmed during runs only).
 */
function declare(pi: PiTestSession, promptCache: { short: number }, cost: { input: number; output: number; cacheRead: number; cacheWrite: number }) {
  Object.assign(pi.session.model as object, { promptCache, cost });
  (pi.session as unknown as { setCacheWarmingMode(mode: string): void }).setCacheWarmingMode("idle");
}

const until = async (done: () => boolean, ms = 5000) => {
  for (const end = performance.now() + ms; !done() && performance.now() < end; ) await new Promise((r) => setTimeout(r, 50));
};

describe("pruning that knows the clock, in a real pi session", () => {
  const scope = piTestScope();
  afterEach(() => vi.useRealTimers());

  function workspace(turns: number): string {
    const cwd = scope.tempDir("pigov-clock-");
    for (let t = 1; t <= turns; t++) writeFileSync(join(cwd, `m${t}.ts`), `// module ${t}\n${"export const value = compute();\n".repeat(120)}`);
    return cwd;
  }

  it("steps land on the requests that find the cache cold (no lifetime declared: 300 s); without the clock they wait", async () => {
    const TURNS = 7;
    // The user leaves for 10 minutes before turn 5 and for a day before turn 7.
    const pauses = new Map([
      [5, 10 * MINUTE],
      [7, 26 * 60 * MINUTE],
    ]);
    const run = async (prune_: Record<string, unknown>) => {
      const cwd = workspace(TURNS);
      vi.useFakeTimers({ toFake: ["Date"], now: START });
      const ext = extension(cwd, prune_);
      const refreshes = { count: 0 };
      const pi = await scope.start({ ui: true, cwd, tools: ["read"], extensions: [ext.factory], responses: script(TURNS, refreshes) });
      const firstOfTurn: number[] = [];
      for (let t = 1; t <= TURNS; t++) {
        vi.setSystemTime(Date.now() + (pauses.get(t) ?? 20_000));
        firstOfTurn.push(ext.reports.length);
        await pi.session.prompt(`What does m${t}.ts do?`);
      }
      vi.useRealTimers();
      return { pi, reports: ext.reports, firstOfTurn, refreshes };
    };

    const clock = await run({});
    const cold = clock.reports.flatMap((r, i) => (r.cold ? [i] : []));
    // Exactly the first request of each turn after a pause, and each of them steps.
    expect(cold).toEqual([clock.firstOfTurn[4], clock.firstOfTurn[6]]);
    for (const i of cold) expect(clock.reports[i]).toMatchObject({ stepped: true });
    expect(clock.refreshes.count).toBe(0);
    // `/governor pruning` says so.
    await clock.pi.session.prompt("/governor pruning");
    const status = clock.pi.ui.notifications.at(-1)!.message;
    expect(status).toContain("prompt cache: entries live 300 s; the last call found it warm");
    expect(status.match(/chars saved, on a cold cache/g)).toHaveLength(2);

    const off = await run({ cacheLifetime: "off" });
    expect(off.reports.map((r) => r.cold)).toEqual(off.reports.map(() => undefined));
    // The same requests without the clock (the same history up to the first pause): the cache-cost
    // rule lets a young session's dear steps wait, and the prompts stay larger.
    expect(off.reports.slice(0, cold[0]).map((r) => r.stepped)).toEqual(clock.reports.slice(0, cold[0]).map((r) => r.stepped));
    for (const i of cold) expect(off.reports[i]!.stepped).toBe(false);
    expect(placeholders(off.pi)).toBeLessThan(placeholders(clock.pi));
  }, 60_000);

  it("a resumed session takes the waiting steps on its first request, the day after", async () => {
    const run = async (prune_: Record<string, unknown>) => {
      const cwd = workspace(6);
      vi.useFakeTimers({ toFake: ["Date"], now: START });
      const first = extension(cwd, prune_);
      const pi = await scope.start({ cwd, tools: ["read"], extensions: [first.factory], responses: script(5, { count: 0 }), persist: true });
      for (let t = 1; t <= 5; t++) {
        vi.setSystemTime(Date.now() + 20_000);
        await pi.session.prompt(`What does m${t}.ts do?`);
      }
      const before = first.reports.at(-1)!.placeholders;
      const sessionFile = pi.session.sessionManager.getSessionFile()!;
      // `pi --session <file>` the next day: a new pi, a new governor, the same session.
      vi.setSystemTime(Date.now() + 24 * 60 * MINUTE);
      const resumed = extension(cwd, prune_);
      const later = await scope.start({ cwd, tools: ["read"], extensions: [resumed.factory], responses: script(6, { count: 0 }).slice(10), sessionFile });
      await later.session.prompt("What does m6.ts do?");
      vi.useRealTimers();
      return { before, first: resumed.reports[0]! };
    };
    // The pruner of the new process knows nothing but the session: its first request is the resumed one.
    const clock = await run({});
    expect(clock.first).toMatchObject({ cold: true, stepped: true });
    expect(clock.first.placeholders).toBeGreaterThan(clock.before);
    // Without the clock a fresh pruner's first request lets the step wait (it may not repay in a young process).
    const off = await run({ cacheLifetime: "off" });
    expect(off.first).toMatchObject({ stepped: false, placeholders: off.before });
  }, 60_000);

  it.skipIf(!piHasCacheWarming)(
    "pi's cache warming: stopped while a step is pending at the next prompt (which then steps on the cold cache); left to pi with nothing pending, and its refresh keeps the next request warm",
    async () => {
      // Lifetime 11 s: pi refreshes one second after each request. Prices at which pi's idle warming pays for a few-thousand-token prompt.
      const dear = { input: 1000, output: 1000, cacheRead: 100, cacheWrite: 1250 };

      // A step is pending: the default cache-cost rule waits in a young session.
      const cwd = workspace(4);
      vi.useFakeTimers({ toFake: ["Date"], now: START });
      const pending = extension(cwd, {});
      const refreshes = { count: 0 };
      const pi = await scope.start({ cwd, tools: ["read"], extensions: [pending.factory], responses: script(4, refreshes) });
      declare(pi, { short: 11 }, dear);
      for (let t = 1; t <= 3; t++) {
        vi.setSystemTime(Date.now() + 2000);
        await pi.session.prompt(`What does m${t}.ts do?`);
      }
      // pi asks one (real) second after the last request; pruning answers.
      await until(() => pending.answers.length > 0);
      expect(pending.answers[0]).toMatchObject({ action: "stop", hostAction: "warm" });
      expect(pending.answers[0]!.keptShare).toBeLessThan(0.5);
      const status = (pi.session as unknown as { cacheWarmingStatus?: { state: string; reason?: string; extensionOverride?: boolean } }).cacheWarmingStatus;
      expect(status).toMatchObject({ state: "inactive", reason: "stopped by extension", extensionOverride: true });
      expect(refreshes.count).toBe(0);
      // The user comes back a minute later: the cache is cold and the pending step is taken on it.
      vi.setSystemTime(Date.now() + MINUTE);
      const before = pending.reports.length;
      await pi.session.prompt("What does m4.ts do?");
      expect(pending.reports[before]).toMatchObject({ cold: true, stepped: true });

      // Nothing pending (every turn kept): pi's decision stands and it refreshes.
      const cwd2 = workspace(3);
      vi.setSystemTime(START);
      const kept = extension(cwd2, { keepRecentTurns: 10 });
      const refreshes2 = { count: 0 };
      const pi2 = await scope.start({ cwd: cwd2, tools: ["read"], extensions: [kept.factory], responses: script(3, refreshes2) });
      declare(pi2, { short: 11 }, dear);
      for (let t = 1; t <= 2; t++) {
        vi.setSystemTime(Date.now() + 2000);
        await pi2.session.prompt(`What does m${t}.ts do?`);
      }
      const reply = Date.now();
      // Five (fake) seconds on, pi's first refresh comes (it may be a few seconds late: its deadline allows it).
      vi.setSystemTime(reply + 5000);
      const warms = () =>
        pi2.session.sessionManager.getBranch().filter((e) => (e as { type: string }).type === "usage" && (e as { kind?: string }).kind === "cache_warm");
      await until(() => warms().length > 0);
      expect(refreshes2.count).toBeGreaterThan(0);
      expect(warms().length).toBeGreaterThan(0);
      expect(kept.answers[0]).toMatchObject({ action: "warm", hostAction: "warm", keptShare: 1 });
      // 14 s after the last reply (more than the 11 s lifetime), 9 s after the refresh: still warm.
      vi.setSystemTime(reply + 14_000);
      const at = kept.reports.length;
      await pi2.session.prompt("What does m3.ts do?");
      expect(kept.reports[at]!.cold).toBeUndefined();
      vi.useRealTimers();
    },
    60_000,
  );
});
