import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run, SAMPLE_SESSION } from "../../../../cli/replay/command.ts";

/** Temporary folders of this file, removed after it (each holds copies of the 572 KB sample). */
const made: string[] = [];
// An agent dir without sessions or config: a run without arguments replays the bundled sample.
const previousAgentDir = process.env.PI_CODING_AGENT_DIR;
process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "replay-agent-"));
made.push(process.env.PI_CODING_AGENT_DIR);
afterAll(() => {
  if (previousAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = previousAgentDir;
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "replay-"));
  made.push(d);
  return d;
};

async function replay(argv: string[]) {
  let out = "";
  let err = "";
  const code = await run(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const numberIn = (text: string, label: string, column: number) => {
  const row = text.split("\n").find((l) => l.startsWith(label))!;
  return Number(row.slice(label.length).trim().split(/\s+/)[column]!.replace(/,/g, ""));
};

describe("pi-governor replay", () => {
  it("replays the bundled sample (30+ turns) and shows the per-turn table, chart and totals under both cache models", async () => {
    const { code, out, err } = await replay([]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain("bundled sample session");
    expect(out).toMatch(/3\d turns, \d+ model calls on the active branch/);
    expect(out).toContain("input cost, k token-eq. (b)");
    expect(out).toContain("How to read this table:");
    expect(out).toContain("█");
    for (const row of [
      "tokens sent",
      "largest prompt",
      "cache breaks (a) prefix",
      "cache breaks (b) breakpoint",
      "cost (a) prefix cache",
      "cost (b) breakpoint cache",
    ])
      expect(out).toContain(row);
    // Columns: no pruning (0), pi-governor (1). The pruned run sends less and costs less under both models.
    expect(out).toMatch(/no pruning +pi-governor +change/);
    expect(out).not.toContain("today's plugin");
    expect(numberIn(out, "tokens sent", 1)).toBeLessThan(numberIn(out, "tokens sent", 0));
    expect(numberIn(out, "cost (a) prefix cache", 1)).toBeLessThan(numberIn(out, "cost (a) prefix cache", 0));
    expect(numberIn(out, "cost (b) breakpoint cache", 1)).toBeLessThan(numberIn(out, "cost (b) breakpoint cache", 0));
    // In plain words: what pruning saved, and what the same pruning perfectly timed would have saved
    // (never less: the perfectly timed schedule is the cheapest of all timings, the plugin's included).
    const saved =
      /Pruning saved (\d+)% of the input cost with a prefix cache \(a\) and (\d+)% with a breakpoint cache \(b\);\nthe same pruning perfectly timed \(knowing each session to its end\) would have saved (\d+)% \(a\) and (\d+)% \(b\)\./.exec(
        out,
      );
    expect(saved).not.toBeNull();
    const [a, b, perfectA, perfectB] = saved!.slice(1).map(Number);
    const percent = (row: string) => Math.round((1 - numberIn(out, row, 1) / numberIn(out, row, 0)) * 100);
    expect(a).toBe(percent("cost (a) prefix cache"));
    expect(b).toBe(percent("cost (b) breakpoint cache"));
    expect(perfectA).toBeGreaterThanOrEqual(a!);
    expect(perfectB).toBeGreaterThanOrEqual(b!);
    for (const line of out.split("\n").filter((l) => /^(tokens sent|largest prompt|prompts over|cache breaks|cost \()/.test(l)))
      expect(line.length).toBeLessThanOrEqual(120);
  });

  it("names malformed lines, skips them and still replays the rest", async () => {
    const dir = tempDir();
    const lines = readFileSync(SAMPLE_SESSION, "utf8").split("\n");
    lines.splice(5, 0, "{broken json");
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, lines.join("\n"));
    const { code, out, err } = await replay([file, "--no-chart", "--no-turns"]);
    expect(code).toBe(0);
    expect(err).toMatch(/bad\.jsonl: line 6: not valid JSON .*skipped/);
    expect(out).toContain("tokens sent");
  });

  it("does not count requests that failed before reaching a model", async () => {
    const d = tempDir();
    const line = (o: Record<string, unknown>) => JSON.stringify(o);
    const msg = (id: string, parentId: string | null, message: Record<string, unknown>) =>
      line({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message });
    const usage = { input: 900, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 920 };
    const session = [
      line({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" }),
      msg("1", null, { role: "user", content: "hello", timestamp: 1 }),
      ...Array.from({ length: 5 }, (_, i) =>
        msg(`e${i}`, i === 0 ? "1" : `e${i - 1}`, { role: "assistant", content: [], stopReason: "error", errorMessage: "No API key", timestamp: 1 }),
      ),
      msg("2", "e4", { role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop", usage, timestamp: 1 }),
    ].join("\n");
    writeFileSync(join(d, "failed.jsonl"), `${session}\n`);
    const { out, err } = await replay([join(d, "failed.jsonl")]);
    expect(out).toMatch(/1 turns, 1 model calls on the active branch/);
    expect(err).toMatch(/5 model call\(s\) failed before reaching a model .*not counted/);
  });

  it("replays every session of a directory with a line each and combined totals", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.jsonl"), readFileSync(SAMPLE_SESSION));
    writeFileSync(join(dir, "b.jsonl"), readFileSync(SAMPLE_SESSION));
    const { code, out } = await replay([dir]);
    expect(code).toBe(0);
    expect(out).toMatch(/a\.jsonl {2}34 turns/);
    expect(out).toContain("Totals over 2 sessions");
  });

  it("prices calls at their real times: says how many found the cache cold, marks them in the per-turn table, and takes --cache-lifetime", async () => {
    // The bundled sample has idle gaps: some prompts come minutes or hours after the last reply.
    const { code, out } = await replay(["--no-chart", SAMPLE_SESSION]);
    expect(code).toBe(0);
    const cold = /(\d+) of (\d+) model calls found the prompt cache cold \(more than 300 s after the previous call/.exec(out);
    expect(cold).not.toBeNull();
    expect(Number(cold![1])).toBeGreaterThan(0);
    expect(numberIn(out, "calls on a cold cache", 0)).toBe(Number(cold![1]));
    expect(out).toMatch(/\n\d+ +\d+ .* cab?\n/);
    expect(out).toContain('"c" marks a call that found the cache cold');
    // An hour-long lifetime: fewer cold calls, and none when longer than every gap.
    const hour = await replay(["--no-chart", "--no-turns", "--cache-lifetime", "3600", SAMPLE_SESSION]);
    expect(numberIn(hour.out, "calls on a cold cache", 0)).toBeLessThan(Number(cold![1]));
    const day = await replay(["--no-chart", "--no-turns", "--cache-lifetime", "86400", SAMPLE_SESSION]);
    expect(numberIn(day.out, "calls on a cold cache", 0)).toBe(0);
    const bad = await replay(["--cache-lifetime", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--cache-lifetime needs a non-negative number, got "soon"');
  });

  it("fails clearly on a missing path, an empty file and a bad option", async () => {
    const missing = await replay(["/nonexistent/session.jsonl"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no such file or directory: /nonexistent/session.jsonl");
    const dir = tempDir();
    writeFileSync(join(dir, "empty.jsonl"), "");
    const empty = await replay([join(dir, "empty.jsonl")]);
    expect(empty.code).toBe(1);
    expect(empty.err).toContain("no model calls on the active branch");
    const bad = await replay(["--window"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("Option '--window <value>' argument missing");
  });

  it("uses the prune and fold sections of --config", async () => {
    const dir = tempDir();
    const config = join(dir, "pi-governor.json");
    // Folding is its own plugin: with prune off it still folds and nudges, so both are turned off.
    writeFileSync(config, JSON.stringify({ prune: { enabled: false }, fold: { enabled: false } }));
    const { out } = await replay(["--config", config, "--no-chart", "--no-turns"]);
    expect(out).toContain(`prune off (config: defaults <- ${config})`);
    expect(numberIn(out, "tokens sent", 1)).toBe(numberIn(out, "tokens sent", 0));
  });

  it("names bad prune settings in --config and replays with the valid parts", async () => {
    const dir = tempDir();
    const config = join(dir, "pi-governor.json");
    writeFileSync(config, JSON.stringify({ prune: { keepRecentTurns: 0 } }));
    const { code, err } = await replay(["--config", config, "--no-chart", "--no-turns"]);
    expect(code).toBe(0);
    expect(err).toContain("prune.keepRecentTurns");
  });
});
