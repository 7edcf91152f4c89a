/**
 * The storage interface's contract on every driver this Node can load (in-process), and on Node 24
 * in a child process (PI_GOVERNOR_NODE24 = path to a Node 24 binary), where the shared better-sqlite3
 * is built for another ABI and the built-in node:sqlite must take over.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itWithSqlite } from "../../../helpers/sqlite-available.ts";
import {
  driverChoice,
  loadDriver,
  openDatabase,
  probeSqlite,
  SQLITE_DRIVER_ENV,
  SqliteUnavailableError,
  type SqliteDriverName,
} from "../../../../lib/sqlite/index.ts";
import { runDriverContract } from "../../../helpers/sqlite-contract.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gov-sqlite-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const probe = probeSqlite({ env: {} });

describe("storage interface contract (in-process)", () => {
  for (const driver of ["node", "better-sqlite3"] as SqliteDriverName[]) {
    it(`${driver}: open 0600/0700, pragma, statements, transactions, busy, FTS5`, (ctx) => {
      const why = probe.unavailable[driver];
      if (why) return ctx.skip(`${driver} does not load on Node ${process.versions.node}: ${why}`);
      const report = runDriverContract(driver, dir);
      expect(report.checks).toBeGreaterThanOrEqual(30);
      expect(report.fts5).toBe(true);
      expect(report.trigram).toBe(true);
    });
  }

  itWithSqlite("auto picks node:sqlite where this Node has it, else better-sqlite3", () => {
    const expected = probe.unavailable.node ? "better-sqlite3" : "node";
    expect(probe.driver).toBe(expected);
    expect(loadDriver(undefined, {}).name).toBe(expected);
    const db = openDatabase(":memory:", { driver: "auto" });
    expect(db.driver).toBe(expected);
    db.close();
  });

  it(`${SQLITE_DRIVER_ENV} forces a driver and rejects an unknown name with the accepted ones`, () => {
    expect(driverChoice(undefined, { [SQLITE_DRIVER_ENV]: "better-sqlite3" })).toBe("better-sqlite3");
    expect(driverChoice(undefined, { [SQLITE_DRIVER_ENV]: "node" })).toBe("node");
    expect(driverChoice("auto", { [SQLITE_DRIVER_ENV]: "node" })).toBe("auto");
    expect(() => driverChoice(undefined, { [SQLITE_DRIVER_ENV]: "sqlite3" })).toThrow(
      /"sqlite3" is not a SQLite driver\. Fix: set it to node, better-sqlite3 or auto/,
    );
    expect(probeSqlite({ env: { [SQLITE_DRIVER_ENV]: "better-sqlite3" } }).driver).toBe(probe.unavailable["better-sqlite3"] ? undefined : "better-sqlite3");
  });

  it("a driver that cannot load is an error naming the driver and the fix, not a crash", (ctx) => {
    const missing = (["node", "better-sqlite3"] as SqliteDriverName[]).find((d) => probe.unavailable[d]);
    if (!missing) return ctx.skip("both drivers load on this Node");
    let error: unknown;
    try {
      openDatabase(join(dir, "x.db"), { driver: missing });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SqliteUnavailableError);
    expect((error as SqliteUnavailableError).driver).toBe(missing);
    expect((error as Error).message).toMatch(
      missing === "node"
        ? /node:sqlite needs Node >= 22\.13 \(this is Node [\d.]+\)\. Fix: run pi on Node >= 22\.13/
        : /npm (rebuild|install --no-save) better-sqlite3/,
    );
  });
});

describe("storage interface contract on Node 24 (child process)", () => {
  const node24 = process.env.PI_GOVERNOR_NODE24;
  it("node:sqlite is chosen and meets the contract with FTS5 + trigram; a better-sqlite3 of another ABI fails with the fix", (ctx) => {
    if (!node24) return ctx.skip("PI_GOVERNOR_NODE24 is not set (path to a Node 24 binary; CI sets it)");
    if (!existsSync(node24)) return ctx.skip(`PI_GOVERNOR_NODE24=${node24} does not exist`);
    const script = resolve(import.meta.dirname, "../../../fixtures/sqlite/contract-child.ts");
    const child = spawnSync(node24, [script, "node", "better-sqlite3"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, [SQLITE_DRIVER_ENV]: "" },
    });
    expect(child.status, child.stderr).toBe(0);
    const out = JSON.parse(child.stdout) as {
      node: string;
      probe: { driver: string; fts5: boolean; trigram: boolean; unavailable: Record<string, string> };
      results: Array<{ driver: string; ok: boolean; report?: { checks: number }; error?: string }>;
    };
    expect(Number(out.node.split(".")[0])).toBeGreaterThanOrEqual(24);
    expect(out.probe).toMatchObject({ driver: "node", fts5: true, trigram: true });
    expect(out.results[0]).toMatchObject({ driver: "node", ok: true });
    expect(out.results[0]!.report!.checks).toBeGreaterThanOrEqual(30);
    const better = out.results[1]!;
    // The shared install is built for Node 20: unless someone rebuilt it, it must fail with the fix.
    if (!better.ok)
      expect(better.error).toMatch(
        /better-sqlite3 is built for another Node \(module version \d+; this one needs \d+\) \(Node 24[\d.]*\)\. Fix: rebuild better-sqlite3 for this Node in .*: npm rebuild better-sqlite3/,
      );
  });
});
