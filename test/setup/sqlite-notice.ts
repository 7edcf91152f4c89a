/**
 * vitest globalSetup: when no SQLite driver loads in this Node (the legacy pass, pi 0.73 on Node 20,
 * on a machine where better-sqlite3 could not be installed), says so ONCE for the whole run, with
 * the cause and the fix; the tests that need SQLite skip themselves (test/helpers/sqlite-available.ts).
 */
import { sqliteUnavailable } from "../../lib/sqlite/index.ts";

export default function setup(): void {
  const why = sqliteUnavailable({});
  if (why) process.stdout.write(`\nSQLite-dependent tests are skipped in this run: ${why.message}\n\n`);
}
