/**
 * A server whose name is so long that pi 1.x cuts its tools' names inside the server's name
 * (`mcp__production_database_cluster_primary_eu_west_1_crit_<hash>`): the tool name no longer says
 * which server or tool it is. pi's namespace for the tool names the server and pi's hash names the
 * tool, so a deny of the server's tools (a glob) or of one tool (its exact name, in pi's spelling or
 * pi-governor's) still refuses the call, and the server's other tools still run where no rule names
 * them. The real `pi` CLI in print mode, with a real MCP server over stdio (test/fixtures/many-tools-mcp).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manyToolsServer } from "../fixtures/many-tools-mcp/command.ts";
import { type PiCliRun, repoRoot, runPiCli } from "../helpers/pi-cli.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";

const SERVER = "production-database-cluster-primary-eu-west-1-critical-xyz";
const NORMALIZED = SERVER.replace(/-/g, "_");

/** pi's name for a tool of its MCP client (pi-mcp's createMcpToolName). */
function piToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_]/g, "_");
  if (name.length <= 64) return name;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, 64 - 9)}_${hash}`;
}

let work: string;
let agentDir: string;
let project: string;
beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "pigov-longsrv-")));
  agentDir = join(work, "agent");
  project = join(work, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const spec = manyToolsServer({ label: SERVER, names: ["wipe", "status"] });
  writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { [SERVER]: { ...spec, exposure: "direct" } } }));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

async function run(deny: string[]): Promise<{ wipe: string; status: string; run: PiCliRun }> {
  writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies: { deny } }));
  const wipe = piToolName(SERVER, "wipe");
  const status = piToolName(SERVER, "status");
  const result = await runPiCli({
    extensions: [repoRoot],
    script: [
      {
        toolCalls: [
          { name: wipe, arguments: {} },
          { name: status, arguments: {} },
        ],
      },
      { text: "done" },
    ],
    prompt: "go",
    cwd: project,
    env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined },
    timeoutMs: 90_000,
  });
  expect(result.code, result.stderr).toBe(0);
  // pi cut the name inside the server's name: neither the tool nor the whole server is in it.
  expect(result.calls[0]!.tools).toEqual(expect.arrayContaining([wipe, status]));
  expect(wipe.startsWith(`mcp__${NORMALIZED.slice(0, 40)}`) && !wipe.includes(NORMALIZED)).toBe(true);
  const [w, s] = result.calls
    .at(-1)!
    .messages.filter((m) => m.role === "toolResult")
    .map((m) => JSON.stringify(m.content));
  return { wipe: w!, status: s!, run: result };
}

describe.skipIf(!piHasBuiltinMcp)(`a server name pi cuts inside its tools' names (pi ${piHost.version})`, () => {
  it("deny of the server's tools (mcp__<server>__*) refuses every tool of it", async () => {
    const { wipe, status } = await run([`mcp__${NORMALIZED}__*`]);
    for (const text of [wipe, status]) {
      expect(text).toContain("Refused by the user's policy (policies.deny)");
      expect(text).not.toContain(`${SERVER} ran`);
    }
  }, 120_000);

  for (const glob of [`mcp__${NORMALIZED}__wipe`, `${SERVER}_wipe`]) {
    it(`deny of the exact tool ${glob.slice(0, 12)}…${glob.slice(-12)} refuses it; the server's other tool runs`, async () => {
      const { wipe, status } = await run([glob]);
      expect(wipe).toContain("Refused by the user's policy (policies.deny)");
      expect(wipe).not.toContain(`${SERVER} ran wipe`);
      expect(status).toContain(`${SERVER} ran status`);
    }, 120_000);
  }
});
