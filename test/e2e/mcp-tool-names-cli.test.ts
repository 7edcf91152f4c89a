/**
 * MCP tool names and list sizes in the real `pi` CLI (print mode, scripted model, mcp preset) with
 * fixture servers over stdio: the ambiguous `fs_remote_write` is offered for neither server and the
 * model's call to it reaches nobody, `fs_remote`'s other tool answers from `fs_remote`, and a server
 * listing 20,000 tools puts at most 200 in front of the model, with warnings on stderr.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manyToolsServer } from "../fixtures/many-tools-mcp/command.ts";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-mcp-names-"));
  for (const d of ["home", "agent", "project"]) mkdirSync(join(work, d));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const env = (servers: Record<string, unknown>) => ({
  HOME: join(work, "home"),
  PI_CODING_AGENT_DIR: join(work, "agent"),
  PI_GOVERNOR_PRESET: undefined,
  PI_GOVERNOR_CONFIG: JSON.stringify({ preset: "mcp", mcp: { servers } }),
});

describe("MCP tool names and sizes in the real pi CLI", () => {
  it("fs and fs_remote: the colliding name reaches no server, the other tools answer from the right one", async () => {
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [
        { toolCall: { name: "fs_remote_write", arguments: { text: "payload" } } },
        { toolCall: { name: "fs_remote_list", arguments: { text: "dir" } } },
        { text: "done" },
      ],
      prompt: "go",
      cwd: join(work, "project"),
      env: env({
        fs: manyToolsServer({ label: "fs", names: ["remote_write", "read"] }),
        fs_remote: manyToolsServer({ label: "fs_remote", names: ["write", "list"] }),
      }),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const offered = run.calls[0]!.tools;
    expect(offered).toEqual(expect.arrayContaining(["fs_read", "fs_remote_list"]));
    expect(offered).not.toContain("fs_remote_write");
    const results = run.calls
      .at(-1)!
      .messages.filter((m) => m.role === "toolResult")
      .map((m) => JSON.stringify(m.content));
    expect(results.join("\n")).not.toContain("fs ran remote_write"); // never reached the wrong server
    expect(results.join("\n")).toContain('fs_remote ran list {\\"text\\":\\"dir\\"}');
    expect(run.stderr).toMatch(/MCP tool name "fs_remote_write" is ambiguous: server "fs" tool "remote_write" and server "fs_remote" tool "write"/);
  }, 120_000);

  it("a server listing 20,000 tools: the model is offered at most 200 of them, and stderr says how many were left out", async () => {
    const run = await runPiCli({
      extensions: [repoRoot],
      script: [{ text: "done" }],
      prompt: "go",
      cwd: join(work, "project"),
      env: env({ big: manyToolsServer({ label: "big", count: 20_000, describeBytes: 2_000 }) }),
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const big = run.calls[0]!.tools.filter((t) => t.startsWith("big_"));
    expect(big.length).toBeGreaterThan(0);
    expect(big.length).toBeLessThanOrEqual(200);
    expect(run.stderr).toContain('MCP server "big" lists 20,000 tools');
    expect(run.stderr).toContain(`${(20_000 - big.length).toLocaleString("en-US")} left out`);
  }, 180_000);
});
