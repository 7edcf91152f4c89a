/**
 * Runs the driver contract in this process and prints one JSON line: for each driver named on the
 * command line, `{ driver, ok, report | error }`, plus the probe. Used to test a Node other than the
 * one running vitest: `node24 test/unit/sqlite/contract-child.ts node better-sqlite3`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeSqlite, type SqliteDriverName } from "../../../lib/sqlite/index.ts";
import { runDriverContract } from "./contract.ts";

const results = process.argv.slice(2).map((driver) => {
  const dir = mkdtempSync(join(tmpdir(), "gov-sqlite-contract-"));
  try {
    return { driver, ok: true, report: runDriverContract(driver as SqliteDriverName, dir) };
  } catch (error) {
    return { driver, ok: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
process.stdout.write(`${JSON.stringify({ node: process.versions.node, probe: probeSqlite(), results })}\n`);
