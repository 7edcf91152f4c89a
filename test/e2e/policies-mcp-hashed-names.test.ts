/**
 * One identity for a server's tool when pi 1.x adds a hash to its name: pi names a tool of its own
 * MCP client `mcp__<server>__<tool>` with every character other than letters, digits and `_` made
 * `_`, and when that is longer than 64 characters, or two tools of the server share it, it cuts the
 * name and appends 8 hex digits of a hash (`mcp__production_dbs__drop_all_tables_and_wipe_backups_i_<hash>`).
 * A rule written with the server's tool name, in either spelling, holds for the hashed name; a rule
 * written with pi's hashed name holds after the server is handed to pi-governor (`mcp.fromPi`).
 * The real `pi` CLI in print mode, with a real MCP server over stdio (test/fixtures/many-tools-mcp).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { manyToolsServer } from "../fixtures/many-tools-mcp/command.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { repoRoot, runPiCli, type PiCliRun, type ScriptStep } from "../helpers/pi-cli.ts";

const LONG = "drop_all_tables_and_wipe_backups_immediately";

/** pi's name for a tool of its MCP client (pi-mcp's createMcpToolName), `hashed` when pi must add the hash. */
function piToolName(server: string, tool: string, hashed = false): string {
  const name = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_]/g, "_");
  if (name.length <= 64 && !hashed) return name;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${name.slice(0, 64 - 9)}_${hash}`;
}

let work: string;
let agentDir: string;
let project: string;
beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "pigov-hashed-")));
  agentDir = join(work, "agent");
  project = join(work, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** pi's mcp.json with one server of the fixture offering `names`. */
function piMcpJson(server: string, names: string[], entry: Record<string, unknown> = {}): void {
  const spec = manyToolsServer({ label: server, names });
  writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { [server]: { ...spec, exposure: "direct", ...entry } } }));
}
const governorConfig = (config: Record<string, unknown>) => writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify(config));

async function run(script: ScriptStep[]): Promise<PiCliRun> {
  const result = await runPiCli({
    extensions: [repoRoot],
    script,
    prompt: "go",
    cwd: project,
    env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined },
    timeoutMs: 90_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** The tool results of the model's last request, in order, as text. */
const results = (r: PiCliRun) =>
  r.calls
    .at(-1)!
    .messages.filter((m) => m.role === "toolResult")
    .map((m) => JSON.stringify(m.content));

describe.skipIf(!piHasBuiltinMcp)(`pi's hashed MCP tool names under the rules (pi ${piHost.version})`, () => {
  const hashed = piToolName("production-dbs", LONG);

  for (const glob of [`production-dbs_${LONG}`, `mcp__production_dbs__${LONG}`, "production_dbs_drop_*", `mcp__production-dbs__${LONG}`]) {
    it(`deny ${glob} refuses pi's ${hashed.slice(-20)}`, async () => {
      piMcpJson("production-dbs", [LONG, "status"]);
      governorConfig({ preset: "lean", policies: { deny: [glob] } });
      const r = await run([
        {
          toolCalls: [
            { name: hashed, arguments: {} },
            { name: "mcp__production_dbs__status", arguments: {} },
          ],
        },
        { text: "done" },
      ]);
      expect(r.calls[0]!.tools).toContain(hashed);
      const [drop, status] = results(r);
      expect(drop).toContain("Refused by the user's policy (policies.deny)");
      expect(drop).not.toContain(`ran ${LONG}`);
      expect(status).toContain("production-dbs ran status");
    }, 120_000);
  }

  it("an allow rule with the tool's exact name lets the hashed tool run before a deny of every other", async () => {
    piMcpJson("production-dbs", [LONG, "status"]);
    governorConfig({
      preset: "lean",
      policies: {
        rules: [
          { tools: `production-dbs_${LONG}`, action: "allow" },
          { tools: "mcp__production_dbs__*", action: "deny" },
        ],
      },
    });
    const r = await run([
      {
        toolCalls: [
          { name: hashed, arguments: {} },
          { name: "mcp__production_dbs__status", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const [drop, status] = results(r);
    expect(drop).toContain(`production-dbs ran ${LONG}`);
    expect(status).toContain("Refused by the user's policy (policies.rules[1]");
  }, 120_000);

  it("two tools pi names alike (wipe-all, wipe_all) get hashes: a deny in either spelling refuses both", async () => {
    piMcpJson("acme", ["wipe-all", "wipe_all", "status"]);
    governorConfig({ preset: "lean", policies: { deny: ["acme_wipe-all"] } });
    const dash = piToolName("acme", "wipe-all", true);
    const underscore = piToolName("acme", "wipe_all", true);
    const r = await run([
      {
        toolCalls: [
          { name: dash, arguments: {} },
          { name: underscore, arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    expect(r.calls[0]!.tools).toEqual(expect.arrayContaining([dash, underscore]));
    for (const text of results(r)) {
      expect(text).toContain("Refused by the user's policy (policies.deny)");
      expect(text).not.toContain("acme ran wipe");
    }
  }, 120_000);
});

describe(`a rule with pi's hashed name after the hand-over (pi ${piHost.version})`, () => {
  const hashed = piToolName("production-dbs", LONG);

  it("mcp.fromPi: a deny written with pi's hashed name refuses the handed-over tool", async () => {
    piMcpJson("production-dbs", [LONG, "status"], { enabled: false });
    governorConfig({ preset: "mcp", mcp: { fromPi: ["production-dbs"] }, policies: { deny: [hashed] } });
    const r = await run([{ toolCall: { name: `production-dbs_${LONG}`, arguments: {} } }, { text: "done" }]);
    const [drop] = results(r);
    expect(drop).toContain("Refused by the user's policy (policies.deny)");
    expect(drop).not.toContain(`ran ${LONG}`);
    expect(r.stderr).not.toMatch(/policies\.deny\[0\] .* matches no tool/);
  }, 120_000);
});
