/**
 * The recall index is where bytes reach SQLite: every insert is redacted there (text, argument
 * summary, tool name, call id), whatever the caller passed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { OUTPUT_COLUMN_CHARS, RecallIndex } from "../../../../plugins/recall/index-store.ts";

const TOKEN = ["ghp", "_", "Ind3xW".repeat(6)].join("");
const fts = probeSqlite().fts5;

describe.skipIf(!fts)("RecallIndex redacts every insert", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps no secret in any column or chunk, and finds the output by its other words", () => {
    dir = mkdtempSync(join(tmpdir(), "pigov-recall-redact-"));
    const path = join(dir, "index.db");
    const index = RecallIndex.open(path);
    index.addAll([
      {
        sessionId: "s1",
        project: "/p",
        tool: `mcp_${TOKEN}`,
        args: `bash(command="curl -H 'Authorization: token ${TOKEN}'")`,
        turn: 1,
        atMs: 1,
        toolCallId: `call-${TOKEN}`,
        blobId: "b".repeat(64),
        isError: false,
        text: `deploy log\nexport GITHUB_TOKEN=${TOKEN}\n${JSON.stringify({ inner: JSON.stringify({ token: TOKEN }) })}\nfinished`,
      },
    ]);
    const { hits } = index.search("deploy finished");
    expect(hits).toHaveLength(1);
    expect(JSON.stringify(hits)).not.toContain(TOKEN);
    expect(index.search(TOKEN.slice(4)).hits).toHaveLength(0);
    expect(index.byToolCallId(`call-${TOKEN}`)).toBeDefined();
    index.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    index.close();
    expect(readFileSync(path, "latin1")).not.toContain(TOKEN.slice(4));
  });

  it("uses the redactor it is given (the session's, with its literal values)", () => {
    dir = mkdtempSync(join(tmpdir(), "pigov-recall-redact-"));
    const index = RecallIndex.open(join(dir, "index.db"), { redactor: new Redactor({ literals: ["server-env-secret-55"] }) });
    index.addAll([
      {
        sessionId: "s",
        project: "/p",
        tool: "t",
        args: "",
        turn: 0,
        atMs: 1,
        toolCallId: "c",
        blobId: "b".repeat(64),
        isError: false,
        text: "value server-env-secret-55 here",
      },
    ]);
    expect(JSON.stringify(index.search("value here").hits)).not.toContain("server-env-secret-55");
    index.close();
  });

  it("bounds every text column of an output where it is written, and reads an older index's long values cut to the bounds", () => {
    dir = mkdtempSync(join(tmpdir(), "pigov-recall-bounds-"));
    const index = RecallIndex.open(join(dir, "index.db"));
    const huge = "A".repeat(1_000_000);
    const record = {
      sessionId: `s-${huge}`,
      project: `/p/${huge}`,
      tool: `t_${huge}`,
      args: `x(${huge})`,
      turn: 1,
      atMs: 1,
      toolCallId: `id_${huge}`,
      blobId: "b".repeat(64),
      isError: false,
    };
    index.addAll([{ ...record, text: "bounded hello" }]);
    const stored = index.db.prepare("SELECT * FROM outputs").get() as Record<string, unknown>;
    for (const [column, max] of Object.entries(OUTPUT_COLUMN_CHARS)) expect(String(stored[column]).length, column).toBeLessThanOrEqual(max);
    // Found by the call id and the filters as given (compared bounded the same way).
    expect(index.byToolCallId(record.toolCallId, record.sessionId)).toBeDefined();
    expect(index.search("bounded", { sessionId: record.sessionId, project: record.project, tool: record.tool }).hits).toHaveLength(1);
    // A row an older version wrote whole is read cut to the bounds.
    index.db.prepare("UPDATE outputs SET tool_call_id = ?, args = ?").run(`id_${huge}`, huge);
    const [hit] = index.search("bounded").hits;
    expect(hit!.toolCallId.length).toBeLessThanOrEqual(OUTPUT_COLUMN_CHARS.tool_call_id);
    expect(hit!.args.length).toBeLessThanOrEqual(OUTPUT_COLUMN_CHARS.args);
    index.close();
  });
});
