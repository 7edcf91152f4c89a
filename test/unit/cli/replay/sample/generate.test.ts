import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editNotFound } from "../../../../../cli/replay/sample/coding-calls.ts";
import { generateSession, sessionJsonl, type SessionLine } from "../../../../../cli/replay/sample/generate.ts";
import { FOLD_TOOL } from "../../../../../cli/replay/sample/model-folds.ts";
import { parseSession } from "../../../../../cli/replay/session-file.ts";

type Block = { type: string; id?: string; name?: string; arguments?: Record<string, unknown> };
type Msg = { role: string; content: Block[] | string; toolCallId?: string; toolName?: string; isError?: boolean };

/** The messages on the active branch, as the replay reads them. */
function activeMessages(lines: SessionLine[]): Msg[] {
  const requests = parseSession(lines.map((l) => JSON.stringify(l)).join("\n")).requests;
  const last = requests[requests.length - 1]!;
  return last.messages as unknown as Msg[];
}
const calls = (messages: Msg[]) =>
  messages.flatMap((m) => (m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((b) => b.type === "toolCall") : []));
const resultOf = (messages: Msg[], id: string) => messages.find((m) => m.role === "toolResult" && m.toolCallId === id)!;
const textOf = (m: Msg) => (m.content as Block[]).map((b) => (b as { text?: string }).text ?? "").join("");

describe("session generator", () => {
  it("keeps the default output (seed 7, 34 turns: the sample of earlier releases), and the bundled sample is the same with idle gaps", () => {
    const sample = readFileSync(join(import.meta.dirname, "../../../../../cli/replay/sample/session.jsonl"), "utf8");
    expect(sessionJsonl({ turns: 34, seed: 7, idleGaps: true })).toBe(sample);
    expect(
      createHash("sha256")
        .update(sessionJsonl({ turns: 34, seed: 7 }))
        .digest("hex"),
    ).toBe("8fb680c874becb13a8c0a8023c44e81f7a78b9aba800f113f6cb3f9153687f7c");
  });

  it("with idle gaps: the same messages, some prompts after 5-60 minutes and a few after hours, about one model call in twelve on a cold 5-minute cache", () => {
    const stripTimes = (lines: SessionLine[]) =>
      JSON.stringify(lines.map(({ timestamp: _t, ...l }) => ({ ...l, ...(l.message ? { message: { ...(l.message as object), timestamp: 0 } } : {}) })));
    let calls = 0;
    let cold = 0;
    const gaps: number[] = [];
    for (const seed of [1, 2, 3, 4]) {
      const options = { turns: 100, seed, coding: seed % 2 === 0 };
      const flat = generateSession(options);
      const away = generateSession({ ...options, idleGaps: true });
      expect(stripTimes(away)).toBe(stripTimes(flat));
      const requests = parseSession(away.map((l) => JSON.stringify(l)).join("\n")).requests;
      calls += requests.length;
      for (let r = 1; r < requests.length; r++) {
        const gap = requests[r]!.at! - requests[r - 1]!.at!;
        if (gap > 300_000) {
          cold++;
          gaps.push(gap);
          // Only a prompt comes after a pause: the request starts a turn.
          expect(requests[r]!.turn).toBe(requests[r - 1]!.turn + 1);
        }
      }
    }
    const minutes = gaps.filter((g) => g <= 3600_000 + 60_000);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5 * 60_000);
    expect(minutes.length).toBeGreaterThan(0.75 * gaps.length);
    expect(gaps.length - minutes.length).toBeGreaterThan(0);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(16 * 3600_000 + 60_000);
    expect(cold / calls).toBeGreaterThan(1 / 16);
    expect(cold / calls).toBeLessThan(1 / 9);
  });

  it("is deterministic per seed with the coding mix and folds, and differs across seeds", () => {
    const a = sessionJsonl({ turns: 40, seed: 3, coding: true, folds: true });
    expect(sessionJsonl({ turns: 40, seed: 3, coding: true, folds: true })).toBe(a);
    expect(sessionJsonl({ turns: 40, seed: 4, coding: true, folds: true })).not.toBe(a);
    expect(sessionJsonl({ turns: 40, seed: 3, coding: true })).not.toBe(a);
  });

  it("the coding mix has writes, edits on files read earlier, failures with pi's texts, repeated and stale reads, file-changing bash", () => {
    const messages = activeMessages(generateSession({ turns: 120, seed: 11, coding: true }));
    const all = calls(messages);
    const named = (n: string) => all.filter((c) => c.name === n);
    const writes = named("write");
    expect(writes.length).toBeGreaterThan(3);
    for (const w of writes) expect(String(w.arguments!.content).length).toBeGreaterThanOrEqual(2000);
    for (const w of writes) expect(String(w.arguments!.content).length).toBeLessThanOrEqual(20_100);

    const edits = named("edit");
    expect(edits.length).toBeGreaterThan(all.length * 0.08);
    const readPaths = new Set<string>();
    let staleReads = 0;
    const changedSinceRead = new Set<string>();
    let failedEdits = 0;
    for (const c of all) {
      const path = String(c.arguments!.path ?? "");
      if (c.name === "read") {
        if (changedSinceRead.has(path)) staleReads++;
        readPaths.add(path);
      }
      if (c.name === "edit") {
        expect(readPaths.has(path)).toBe(true); // edits only files read earlier
        const texts = (c.arguments!.edits as Array<{ oldText: string; newText: string }> | undefined) ?? [
          { oldText: String(c.arguments!.oldText), newText: String(c.arguments!.newText) },
        ];
        for (const t of texts) {
          expect(t.oldText.length).toBeGreaterThanOrEqual(100);
          expect(t.newText.length).toBeLessThanOrEqual(3000);
        }
        const r = resultOf(messages, c.id!);
        if (r.isError) {
          failedEdits++;
          expect([editNotFound(path, 0, 1), editNotFound(path, 0, 2), editNotFound(path, 1, 2)]).toContain(textOf(r));
        } else {
          expect(textOf(r)).toBe(`Successfully replaced ${texts.length} block(s) in ${path}.`);
          changedSinceRead.add(path);
        }
      }
    }
    expect(failedEdits).toBeGreaterThan(0);
    expect(staleReads).toBeGreaterThan(3);
    expect(textOf(resultOf(messages, writes[0]!.id!))).toMatch(/^Successfully wrote \d+ bytes to /);

    const reads = named("read").map((c) => JSON.stringify(c.arguments));
    expect(reads.length - new Set(reads).size).toBeGreaterThan(5); // repeated with the same arguments
    const nav = [...named("ls"), ...named("kota_deps")].map((c) => `${c.name}:${JSON.stringify(c.arguments)}`);
    expect(nav.length - new Set(nav).size).toBeGreaterThan(0);
    const commands = named("bash").map((c) => String(c.arguments!.command));
    expect(commands.some((c) => /^sed -i .* src\//.test(c) || /^npx prettier --write /.test(c))).toBe(true);
    expect(commands.some((c) => c.startsWith("git status") || c.startsWith("rg "))).toBe(true);
    expect(named("bash").some((c) => resultOf(messages, c.id!).isError && /Command exited with code \d+$/.test(textOf(resultOf(messages, c.id!))))).toBe(true);
  });

  it("the navigation mix is mostly kota calls, some repeated with the same arguments and answer; the logs mix is mostly long bash output", () => {
    const nav = activeMessages(generateSession({ turns: 40, seed: 5, mix: "navigation" }));
    const navCalls = calls(nav);
    const kota = navCalls.filter((c) => c.name!.startsWith("kota_"));
    expect(kota.length / navCalls.length).toBeGreaterThan(0.6);
    for (const tool of ["kota_search", "kota_usages", "kota_deps", "kota_impact"]) expect(navCalls.some((c) => c.name === tool)).toBe(true);
    const seen = new Map<string, string>();
    let repeats = 0;
    for (const c of kota.filter((c) => c.name !== "kota_impact")) {
      const key = `${c.name}${JSON.stringify(c.arguments)}`;
      const answer = textOf(resultOf(nav, c.id!));
      if (seen.has(key) && seen.get(key) === answer) repeats++;
      seen.set(key, answer);
    }
    expect(repeats).toBeGreaterThan(3);
    const logs = activeMessages(generateSession({ turns: 40, seed: 5, mix: "logs" }));
    const bash = calls(logs).filter((c) => c.name === "bash");
    expect(bash.length / calls(logs).length).toBeGreaterThan(0.6);
    const sizes = bash.map((c) => textOf(resultOf(logs, c.id!)).length).sort((a, b) => a - b);
    expect(sizes[Math.floor(sizes.length / 2)]!).toBeGreaterThan(4000);
    expect(bash.some((c) => resultOf(logs, c.id!).isError)).toBe(true);
    expect(sessionJsonl({ turns: 20, seed: 5, mix: "logs" })).toBe(sessionJsonl({ turns: 20, seed: 5, mix: "logs" }));
  });

  it("without the options there are no coding tools and no folds", () => {
    const names = new Set(calls(activeMessages(generateSession({ turns: 60, seed: 5 }))).map((c) => c.name));
    for (const n of ["write", "edit", "ls", FOLD_TOOL]) expect(names.has(n)).toBe(false);
  });

  it("the folding model folds finished turns older than the last 3, never a pinned turn, with a 400-1,200 char summary", () => {
    const messages = activeMessages(generateSession({ turns: 80, seed: 9, coding: true, folds: true }));
    const turnOfCall = new Map<string, number>();
    const pinnedTurns = new Set<number>();
    let turn = 0;
    const folds: Array<{ turn: number; from: string; to: string; summary: string; id: string }> = [];
    for (const m of messages) {
      if (m.role === "user") turn++;
      for (const c of calls([m])) {
        turnOfCall.set(c.id!, turn);
        if (c.name === "kota_impact") pinnedTurns.add(turn);
        if (c.name === FOLD_TOOL) folds.push({ turn, id: c.id!, ...(c.arguments as { from: string; to: string; summary: string }) });
      }
    }
    expect(folds.length).toBeGreaterThanOrEqual(3);
    let previousTo = 0;
    for (const f of folds) {
      const from = turnOfCall.get(f.from)!;
      const to = turnOfCall.get(f.to)!;
      expect(from).toBeGreaterThan(previousTo); // after the previous fold
      expect(to).toBeGreaterThanOrEqual(from + 2);
      expect(to).toBeLessThanOrEqual(f.turn - 4); // older than the last 3 finished turns
      for (let t = from; t <= to; t++) expect(pinnedTurns.has(t)).toBe(false);
      // from/to are the first and last tool calls of their turns
      expect([...turnOfCall].find(([, t]) => t === from)![0]).toBe(f.from);
      expect([...turnOfCall].filter(([, t]) => t === to).pop()![0]).toBe(f.to);
      expect(f.summary.length).toBeGreaterThanOrEqual(400);
      expect(f.summary.length).toBeLessThanOrEqual(1200);
      const r = resultOf(messages, f.id);
      expect(r.isError).toBe(false);
      expect(textOf(r)).toMatch(/^Folded turns \d+-\d+ /);
      previousTo = to;
    }
  });
});
