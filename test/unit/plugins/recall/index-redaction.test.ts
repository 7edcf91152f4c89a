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
import { RecallIndex } from "../../../../plugins/recall/index-store.ts";

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
});
