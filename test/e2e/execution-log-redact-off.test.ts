/**
 * The execution log with the redact plugin turned off (`redact.enabled: false`, the user's choice for
 * what the model reads), in real pi (print mode, the scripted provider): what the log writes to disk
 * is still redacted with the built-in rules, as the blob cache, the recall index and telemetry are.
 * A provider's call id that carries a GitHub token, and a call to a tool named like one, leave no
 * part of either token in executions.db.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openDatabase } from "../../lib/sqlite/index.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";
import { piWorkspace } from "../helpers/pi-workspace.ts";
import { describeWithSqlite } from "../helpers/sqlite-available.ts";

const ID_TOKEN = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
const NAME_TOKEN = ["ghp", "ZZCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");

let work: string | undefined;
afterEach(() => work && rmSync(work, { recursive: true, force: true }));

describeWithSqlite("execution log with redact off", () => {
  it("a call id and a tool name holding tokens are stored redacted by the built-in rules", async () => {
    const ws = piWorkspace("pigov-log-redact-off-");
    work = ws.root;
    const { project, agentDir, home } = ws;
    writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "mcp", redact: { enabled: false } }));
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [
        {
          toolCalls: [
            { name: "bash", id: `call_${ID_TOKEN}`, arguments: { command: "echo hi" } },
            { name: NAME_TOKEN, arguments: {} },
          ],
        },
        { text: "done" },
      ],
      prompt: "go",
      cwd: project,
      env: { HOME: home, PI_CODING_AGENT_DIR: agentDir },
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.stdout).toContain("done");

    const dbPath = join(agentDir, "pi-governor", "executions.db");
    const db = openDatabase(dbPath, { readonly: true });
    let rows: Array<Record<string, unknown>>;
    try {
      rows = db.prepare("SELECT * FROM tool_execution_log").all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
    expect(rows.map((r) => r.tool_name).sort()).toEqual(["(unknown tool)", "bash"]);
    const bash = rows.find((r) => r.tool_name === "bash")!;
    expect(bash.task_id).toBe("call_[redacted:github-token]");
    // Nothing of either token anywhere in the file (the WAL included, in case it was not checkpointed).
    for (const file of ["executions.db", "executions.db-wal"]) {
      let bytes: string;
      try {
        bytes = readFileSync(join(agentDir, "pi-governor", file), "latin1");
      } catch {
        continue;
      }
      expect(bytes, file).not.toContain(ID_TOKEN.slice(4, 24));
      expect(bytes, file).not.toContain(NAME_TOKEN.slice(4, 24));
    }
  }, 120_000);
});
