/**
 * The storage-interface contract every driver must meet, as a plain function (node:assert) so the same
 * checks run in-process under vitest and in a child process under another Node (test/fixtures/sqlite/contract-child.ts).
 * Throws on the first broken promise; returns what it learned.
 */
import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import { mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { isTransientSqliteError, openDatabase, probeSqlite, sqliteErrorCode, type SqliteDriverName } from "../../lib/sqlite/index.ts";

/** What one contract run reports. */
export interface ContractReport {
  driver: SqliteDriverName;
  node: string;
  sqliteVersion: string | undefined;
  fts5: boolean;
  trigram: boolean;
  /** Milliseconds a BEGIN IMMEDIATE against a locked database took to fail with busyTimeoutMs 0. */
  busyFailMs: number;
  checks: number;
}

/** Runs the contract with `driver` forced, in the empty directory `dir`. */
export function runDriverContract(driver: SqliteDriverName, dir: string): ContractReport {
  let checks = 0;
  const check = (fn: () => void) => {
    fn();
    checks++;
  };
  const path = join(dir, "private", "store.db");
  const db = openDatabase(path, { driver });
  check(() => equal(db.driver, driver));
  check(() => equal(statSync(path).mode & 0o777, 0o600));
  check(() => equal(statSync(join(dir, "private")).mode & 0o777, 0o700));
  check(() => equal(db.pragma("journal_mode = WAL"), "wal"));
  check(() => equal(db.pragma("busy_timeout"), 0));
  db.pragma("user_version = 7");
  check(() => equal(db.pragma("user_version"), 7));

  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER, data BLOB)");
  const insert = db.prepare("INSERT INTO t (name, n, data) VALUES (@name, @n, @data)");
  const first = insert.run({ name: "a", n: 1, data: null });
  check(() => deepStrictEqual([first.changes, Number(first.lastInsertRowid)], [1, 1]));
  db.prepare("INSERT INTO t (name, n) VALUES (?, ?)").run("b", 2);
  check(() => deepStrictEqual({ ...db.prepare<{ name: string; n: number }>("SELECT name, n FROM t WHERE id = ?").get(2) }, { name: "b", n: 2 }));
  check(() => equal(db.prepare("SELECT * FROM t WHERE id = ?").get(99), undefined));
  check(() =>
    deepStrictEqual(
      db
        .prepare<{ name: string }>("SELECT name FROM t ORDER BY id")
        .all()
        .map((r) => r.name),
      ["a", "b"],
    ),
  );
  check(() =>
    deepStrictEqual(
      [...db.prepare<{ n: number }>("SELECT n FROM t WHERE n >= :min ORDER BY n").iterate({ min: 1 })].map((r) => r.n),
      [1, 2],
    ),
  );
  const bytes = new Uint8Array([0, 1, 255]);
  db.prepare("UPDATE t SET data = ? WHERE id = 1").run(bytes);
  check(() => deepStrictEqual([...db.prepare<{ data: Uint8Array }>("SELECT data FROM t WHERE id = 1").get()!.data], [0, 1, 255]));

  // Transactions: commit, rollback on throw, savepoint inside, sync only.
  const count = () => Number(db.prepare<{ c: number }>("SELECT count(*) AS c FROM t").get()!.c);
  db.transaction(() => insert.run({ name: "c", n: 3, data: null }));
  check(() => equal(count(), 3));
  check(() =>
    throws(
      () =>
        db.transaction(() => {
          insert.run({ name: "d", n: 4, data: null });
          throw new Error("boom");
        }),
      /boom/,
    ),
  );
  check(() => equal(count(), 3));
  check(() => equal(db.inTransaction, false));
  db.transaction(() => {
    insert.run({ name: "outer", n: 5, data: null });
    throws(() =>
      db.transaction(() => {
        insert.run({ name: "inner", n: 6, data: null });
        throw new Error("inner");
      }),
    );
    ok(db.inTransaction);
  });
  check(() =>
    deepStrictEqual(
      db
        .prepare<{ name: string }>("SELECT name FROM t WHERE n >= 5")
        .all()
        .map((r) => r.name),
      ["outer"],
    ),
  );
  check(() => throws(() => db.transaction((() => Promise.resolve(1)) as () => unknown), /synchronous/));
  check(() => equal(count(), 4));

  // A second connection holding the write lock: busy fails fast and is classified as transient.
  const other = openDatabase(path, { driver });
  other.exec("BEGIN IMMEDIATE");
  const started = performance.now();
  let busy: unknown;
  try {
    db.transaction(() => insert.run({ name: "e", n: 7, data: null }));
  } catch (error) {
    busy = error;
  }
  const busyFailMs = performance.now() - started;
  check(() => equal(sqliteErrorCode(busy), "SQLITE_BUSY"));
  check(() => ok(isTransientSqliteError(busy)));
  check(() => equal(db.inTransaction, false));
  other.exec("ROLLBACK");
  other.close();
  db.transaction(() => insert.run({ name: "e", n: 7, data: null }));
  check(() => equal(count(), 5));

  // Non-transient failures.
  let syntax: unknown;
  try {
    db.exec("NOT SQL");
  } catch (error) {
    syntax = error;
  }
  check(() => ok(syntax !== undefined && !isTransientSqliteError(syntax)));
  check(() => throws(() => openDatabase(join(dir, "missing.db"), { driver, readonly: true })));
  mkdirSync(join(dir, "links"));
  symlinkSync(join(dir, "elsewhere.db"), join(dir, "links", "planted.db"));
  check(() => throws(() => openDatabase(join(dir, "links", "planted.db"), { driver }), /symbolic link/));

  // Read-only connection sees committed rows and cannot write.
  const reader = openDatabase(path, { driver, readonly: true });
  check(() => equal(Number(reader.prepare<{ c: number }>("SELECT count(*) AS c FROM t").get()!.c), 5));
  check(() => throws(() => reader.exec("DELETE FROM t")));
  reader.close();

  // FTS5 through the same interface, when the probe says it is there.
  const probe = probeSqlite({ driver });
  check(() => equal(probe.driver, driver));
  if (probe.fts5) {
    db.exec("CREATE VIRTUAL TABLE notes USING fts5(body)");
    db.prepare("INSERT INTO notes (body) VALUES (?)").run("the circuit breaker opened after five failures");
    check(() => equal(db.prepare("SELECT body FROM notes WHERE notes MATCH ?").all("breaker").length, 1));
  }
  if (probe.trigram) {
    db.exec("CREATE VIRTUAL TABLE grams USING fts5(body, tokenize = 'trigram')");
    db.prepare("INSERT INTO grams (body) VALUES (?)").run("executionLogWriter");
    check(() => equal(db.prepare("SELECT body FROM grams WHERE grams MATCH ?").all("LogWri").length, 1));
  }

  db.close();
  db.close();
  check(() => equal(db.isOpen, false));
  return { driver, node: process.versions.node, sqliteVersion: probe.sqliteVersion, fts5: probe.fts5, trigram: probe.trigram, busyFailMs, checks };
}
