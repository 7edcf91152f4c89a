import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sqliteFailureAdvice } from "../../../../lib/sqlite/index.ts";

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("sqliteFailureAdvice: what is wrong, where, and the concrete fix", () => {
  const where = () => {
    dir = mkdtempSync(join(tmpdir(), "pigov-advice-"));
    const path = join(dir, "index.db");
    writeFileSync(path, "x".repeat(2 * 1024 * 1024));
    return { path, configKey: "recall.dbPath", rebuilt: "a new, empty index is created at the next start" };
  };

  it("a full disk: which directory, how much is free, how large the database is, which key moves it", () => {
    const w = where();
    for (const error of [sqliteError("SQLITE_FULL", "database or disk is full"), sqliteError("ENOSPC", "no space left on device")]) {
      const text = sqliteFailureAdvice(error, w);
      expect(text).toMatch(
        new RegExp(
          `^the disk holding ${dir} is full \\([\\d.]+ MiB free; the database is 2\\.0 MiB\\)\\. Free space in that file system, or set recall\\.dbPath to a file on a disk with room$`,
        ),
      );
      expect(text).not.toMatch(/remove or move/);
    }
  });

  it("a corrupt file (also when SQLite says only 'disk I/O error'): says corrupt, where, and the command that sets it aside", () => {
    const w = where();
    const corrupt = sqliteFailureAdvice(sqliteError("SQLITE_CORRUPT", "database disk image is malformed"), w);
    expect(corrupt).toBe(
      `the file is corrupt or not a SQLite database (database disk image is malformed). Set it aside: mv ${JSON.stringify(w.path)} ${JSON.stringify(`${w.path}.corrupt`)} (and its -wal and -shm files); a new, empty index is created at the next start`,
    );
    const io = sqliteFailureAdvice(sqliteError("SQLITE_IOERR_SHORT_READ", "disk I/O error"), w);
    expect(io).toMatch(
      /^SQLite could not read or write it \(disk I\/O error\): the file or its -wal\/-shm companions are likely corrupt, or the disk is failing\. Set it aside: mv /,
    );
    expect(io).toContain(`check the disk holding ${dir}`);
    // node:sqlite spells the code as a number.
    expect(sqliteFailureAdvice(Object.assign(new Error("file is not a database"), { code: "ERR_SQLITE_ERROR", errcode: 26 }), w)).toMatch(
      /^the file is corrupt or not a SQLite database/,
    );
  });
});
