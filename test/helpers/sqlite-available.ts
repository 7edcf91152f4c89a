/**
 * Whether SQLite works in this test process. It does wherever pi's current line runs (Node >= 22.13:
 * node:sqlite); on the legacy line (pi 0.73 on Node 20) only with the optional better-sqlite3, which
 * does not install on a machine without a prebuilt binary or a C++ toolchain. Tests that need SQLite
 * use {@link describeWithSqlite} / {@link itWithSqlite}: skipped there, and the run prints the reason
 * once (test/setup/sqlite-notice.ts), not per test.
 */
import { describe, it } from "vitest";
import { sqliteUnavailable } from "../../lib/sqlite/index.ts";

/** Why no SQLite driver loads here (the driver choice of a session without PI_GOVERNOR_SQLITE_DRIVER), or undefined. */
export const noSqlite: string | undefined = sqliteUnavailable({})?.message;

/** `describe` that is skipped when no SQLite driver loads. */
export const describeWithSqlite: typeof describe = describe.skipIf(noSqlite !== undefined) as typeof describe;

/** `it` that is skipped when no SQLite driver loads. */
export const itWithSqlite: typeof it = it.skipIf(noSqlite !== undefined) as typeof it;

/** Ends the test as skipped when no SQLite driver loads (first line of a test: `skipWithoutSqlite(ctx)`). */
export function skipWithoutSqlite(ctx: { skip(note?: string): void }): void {
  if (noSqlite !== undefined) ctx.skip("no SQLite driver loads (see the note at the start of the run)");
}
