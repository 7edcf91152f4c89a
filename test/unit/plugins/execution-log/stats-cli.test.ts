import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeWithSqlite } from "../../../helpers/sqlite-available.ts";
import { main } from "../../../../cli/main.ts";
import { openDatabase } from "../../../../lib/sqlite/index.ts";
import { migrate } from "../../../../plugins/execution-log/index.ts";
import { parseSince, percentile } from "../../../../plugins/execution-log/stats.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gov-stats-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function seed(path: string): void {
  const db = openDatabase(path);
  migrate(db);
  const insert = db.prepare("INSERT INTO tool_execution_log (tool_name, status, duration_ms, started_at, retries, error_category) VALUES (?, ?, ?, ?, ?, ?)");
  for (let i = 1; i <= 20; i++) insert.run("kota_search", "SUCCESS", i * 10, "2026-11-20T10:00:00.000Z", i === 20 ? 2 : 0, null);
  insert.run("kota_search", "TIMEOUT_EXCEEDED", 300_000, "2026-11-20T10:00:00.000Z", 0, "timeout");
  insert.run("kota_deps", "ERROR", 5, "2026-11-01T10:00:00.000Z", 1, "network");
  db.close();
}

async function run(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(["stats", ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describeWithSqlite("pi-governor stats", () => {
  it("prints per-tool counts, p50/p95 latency, timeouts, errors and retries", async () => {
    const path = join(dir, "e.db");
    seed(path);
    const r = await run(["--db", path]);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[1]).toMatch(/^tool\s+calls\s+ok\s+timeouts\s+errors\s+retries\s+p50 ms\s+p95 ms\s+top error$/);
    // 21 kota_search calls: durations 10..200 and one 300000; nearest-rank p50 = 110, p95 = 200.
    expect(r.out).toMatch(/kota_search\s+21\s+20\s+1\s+0\s+2\s+110\s+200/);
    expect(r.out).toMatch(/kota_deps\s+1\s+0\s+0\s+1\s+1\s+5\s+5\s+network/);
    expect(r.out).toMatch(/\(all\)\s+22\s+20\s+1\s+1\s+3/);
  });

  it("filters by --since and --tool, and prints JSON with --json", async () => {
    const path = join(dir, "e.db");
    seed(path);
    const r = await run(["--db", path, "--since", "2026-11-10", "--json"]);
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.out) as { tools: Array<{ tool: string; calls: number }> };
    expect(parsed.tools.map((t) => t.tool)).toEqual(["kota_search"]);
    const one = await run(["--db", path, "--tool", "kota_deps"]);
    expect(one.out).toMatch(/kota_deps/);
    expect(one.out).not.toMatch(/kota_search/);
  });

  it("says so when there is no log yet, and rejects bad arguments", async () => {
    const missing = await run(["--db", join(dir, "none.db")]);
    expect(missing.code).toBe(0);
    expect(missing.out).toMatch(/No execution log/);
    expect((await run(["--bogus"])).code).toBe(2);
    expect((await run(["--db", join(dir, "x.db"), "--since", "yesterday-ish"])).code).toBe(2);
  });

  it("reports an unreadable database with exit code 3 (as search does)", async () => {
    const path = join(dir, "empty.db");
    openDatabase(path).close();
    const r = await run(["--db", path]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/cannot read/);
  });
});

describe("stats helpers", () => {
  it("nearest-rank percentiles", () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
  });
  it("parses durations and dates for --since", () => {
    const now = Date.UTC(2026, 10, 22, 12);
    expect(parseSince("2h", now)).toBe("2026-11-22T10:00:00.000Z");
    expect(parseSince("7d", now)).toBe("2026-11-15T12:00:00.000Z");
    expect(parseSince("2026-11-01T00:00:00Z", now)).toBe("2026-11-01T00:00:00.000Z");
    expect(parseSince("soon", now)).toBeUndefined();
  });
  it("reads a log written before names were bounded: names cut, at most 200 tools listed, the rest summed", async () => {
    const path = join(dir, "legacy.db");
    const db = openDatabase(path);
    migrate(db);
    const insert = db.prepare("INSERT INTO tool_execution_log (tool_name, status, duration_ms, started_at, retries, error_category) VALUES (?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < 300; i++) insert.run(`${i}_${"n".repeat(65_540)}`, "ERROR", 1, "2026-11-20T10:00:00.000Z", 0, "e".repeat(10_000));
    db.close();
    const r = await run(["--db", path]);
    expect(r.code).toBe(0);
    expect(r.out.length).toBeLessThan(64 * 1024);
    expect(r.out).toMatch(/^\(100 more tools\)\s+100\s+0\s+0\s+100/m);
    expect(r.out).toMatch(/^\(all\)\s+300/m);
  });

  it("an older log's names, in the table and in --json: redacted, control characters made visible, at most 200 tools listed", async () => {
    const path = join(dir, "legacy-secrets.db");
    const token = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
    const akia = ["AKIA", "IOSFODNN7ABCDEFG"].join("");
    const db = openDatabase(path);
    migrate(db);
    const insert = db.prepare("INSERT INTO tool_execution_log (tool_name, status, duration_ms, started_at, retries, error_category) VALUES (?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < 5; i++) insert.run(`deploy_${token}`, "ERROR", 1, "2026-11-20T10:00:00.000Z", 0, `auth ${akia}`);
    insert.run(`${akia}`, "SUCCESS", 1, "2026-11-20T10:00:00.000Z", 0, null);
    insert.run("evil\u001b]52;c;aGk=\u0007name\u202e", "SUCCESS", 1, "2026-11-20T10:00:00.000Z", 0, null);
    for (let i = 0; i < 300; i++) insert.run(`tool_${i}`, "SUCCESS", 1, "2026-11-20T10:00:00.000Z", 0, null);
    db.close();
    for (const args of [
      ["--db", path],
      ["--db", path, "--json"],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(0);
      expect(r.out).not.toContain(token.slice(4, 20));
      expect(r.out).not.toContain(akia);
      expect(r.out).not.toContain("\u001b");
      expect(r.out).not.toContain("\u202e");
      expect(r.out).toContain("deploy_[redacted:github-token]");
    }
    const json = JSON.parse((await run(["--db", path, "--json"])).out) as {
      tools: Array<{ tool: string; calls: number }>;
      omitted?: { tools: number; calls: number };
    };
    expect(json.tools).toHaveLength(200);
    expect(json.omitted).toEqual(expect.objectContaining({ tools: 103, calls: 103 }));
    expect(json.tools.reduce((n, t) => n + t.calls, 0) + json.omitted!.calls).toBe(307);
  });
});
