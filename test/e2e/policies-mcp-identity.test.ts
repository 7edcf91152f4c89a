/**
 * One identity for a server's tool, whichever side runs it, in the real `pi` CLI (print mode) with
 * the real server-everything over stdio named `acme`: pi 1.x runs it from its own mcp.json as
 * `mcp__acme__<tool>`, and after the documented hand-over (`mcp.fromPi`) pi-governor runs it as
 * `acme_<tool>`. A deny glob, a rule and a limit written in either spelling hold on both sides; pi's
 * resource tools that name the server in their arguments are the server's calls; a glob that matches
 * no known tool or server is named at load.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { faultyServer, type FaultyServer } from "../fixtures/faulty-mcp/command.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { repoRoot, runPiCli, type PiCliRun, type ScriptCall, type ScriptStep } from "../helpers/pi-cli.ts";

const require = createRequire(import.meta.url);
/** A line of one of server-everything's static resources (its docs/features.md), as the model would get it. */
const RESOURCE_URI = "demo://resource/static/document/features.md";
const RESOURCE_TEXT = readFileSync(join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/docs/features.md"), "utf8")
  .split("\n")[0]!
  .slice(2);

let work: string;
let agentDir: string;
let project: string;
let server: FaultyServer;
beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "pigov-identity-")));
  agentDir = join(work, "agent");
  project = join(work, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  server = faultyServer({ server: "everything" });
});
afterEach(() => {
  server.cleanup();
  rmSync(work, { recursive: true, force: true });
});

/** pi's mcp.json with `acme` (server-everything); `enabled: false` leaves it to pi-governor. */
function piMcpJson(entry: Record<string, unknown> = {}, more: Record<string, unknown> = {}): void {
  const acme = { command: server.command, args: server.args, env: server.env, exposure: "direct", ...entry };
  writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { acme, ...more } }));
}
const governorConfig = (config: Record<string, unknown>) => writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify(config));
const call = (name: string, args: Record<string, unknown> = {}): ScriptCall => ({ name, arguments: args });

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

/** Every tool result the model was sent on its last call, in order. */
function results(r: PiCliRun): Array<{ toolName?: string; text: string }> {
  return r.calls
    .at(-1)!
    .messages.filter((m) => m.role === "toolResult")
    .map((m) => ({ toolName: m.toolName, text: JSON.stringify(m.content) }));
}

describe(`a server's tool has one identity under the rules (pi ${piHost.version})`, () => {
  it("mcp.fromPi: deny written in pi's spelling (mcp__acme__echo*) refuses the handed-over acme_echo", async () => {
    piMcpJson({ enabled: false });
    governorConfig({ preset: "mcp", mcp: { fromPi: ["acme"] }, policies: { deny: ["mcp__acme__echo*"] } });
    const r = await run([{ toolCall: call("acme_echo", { message: "hand-over" }) }, { text: "done" }]);
    const [echo] = results(r);
    expect(echo!.text).toContain("Refused by the user's policy (policies.deny)");
    expect(echo!.text).not.toContain("Echo: hand-over");
  }, 120_000);

  it("mcp.fromPi: a rule and a limit in pi's spelling hold for the handed-over tools; other tools still run", async () => {
    piMcpJson({ enabled: false });
    governorConfig({
      preset: "mcp",
      mcp: { fromPi: ["acme"] },
      policies: { rules: [{ tools: "mcp__acme__get_sum", action: "deny" }], limits: [{ tools: "mcp__acme__*", perRun: 1 }] },
    });
    const r = await run([
      { toolCall: call("acme_get-sum", { a: 1, b: 2 }) },
      { toolCall: call("acme_echo", { message: "one" }) },
      { toolCall: call("acme_echo", { message: "two" }) },
      { text: "done" },
    ]);
    const [sum, one, two] = results(r);
    expect(sum!.text).toContain("Refused by the user's policy (policies.rules[0]");
    expect(one!.text).toContain("Echo: one");
    expect(two!.text).toContain("reached its limit of 1 calls of mcp__acme__*");
  }, 120_000);

  it("a deny glob that matches no known tool or server is named at load, in /governor status and by the doctor", async () => {
    piMcpJson({ enabled: false });
    governorConfig({ preset: "mcp", mcp: { fromPi: ["acme"] }, policies: { deny: ["mcp__acme__ehco*", "mcp__acmee__*", "acme_echo", "read"] } });
    const r = await runPiCli({
      extensions: [repoRoot],
      script: [],
      prompt: ["/governor status", "/governor doctor"],
      cwd: project,
      env: { PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined },
      timeoutMs: 90_000,
    });
    // At load (the warning block), in the status's Policies section and in the doctor's report.
    for (const glob of [/policies\.deny\[0\] "mcp__acme__ehco\*" matches no tool/g, /policies\.deny\[1\] "mcp__acmee__\*" matches no tool/g]) {
      expect(r.stderr.match(glob)?.length ?? 0, r.stderr).toBeGreaterThanOrEqual(3);
    }
    expect(r.stderr).toMatch(/WARN {2}preset: degraded at load: governor:policies: policies\.deny\[0\]/);
    expect(r.stderr).toContain("Not matched (no tool call)");
    expect(r.stderr).toContain('2 glob(s) match no tool or server known at load (listed under "Degraded at load"): policies.deny[0], policies.deny[1]');
    expect(r.stderr).not.toMatch(/policies\.deny\[[23]\]/);
    expect(r.calls).toHaveLength(0);
  }, 120_000);

  describe.skipIf(!piHasBuiltinMcp)("pi's own MCP client", () => {
    it("deny written in pi-governor's spelling (acme_echo) refuses pi's mcp__acme__echo", async () => {
      piMcpJson();
      governorConfig({ preset: "lean", policies: { deny: ["acme_echo"] } });
      const r = await run([{ toolCall: call("mcp__acme__echo", { message: "pi side" }) }, { text: "done" }]);
      const [echo] = results(r);
      expect(echo!.text).toContain("Refused by the user's policy (policies.deny)");
      expect(echo!.text).not.toContain("Echo: pi side");
    }, 120_000);

    it("pi's resource tools naming a denied server are refused: read, list with the server, list without one", async () => {
      piMcpJson({}, { other: { command: server.command, args: server.args, env: server.env, exposure: "direct" } });
      governorConfig({ preset: "lean", policies: { deny: ["mcp__acme__*"] } });
      const r = await run([
        {
          toolCalls: [
            call("read_mcp_resource", { server: "acme", uri: RESOURCE_URI }),
            call("read_mcp_resource", { server: " acme ", uri: RESOURCE_URI }),
            call("list_mcp_resources", { server: "acme" }),
            call("list_mcp_resources", {}),
            call("list_mcp_resource_templates", { server: "  " }),
            call("read_mcp_resource", { server: "other", uri: RESOURCE_URI }),
          ],
        },
        { text: "done" },
      ]);
      const all = results(r);
      expect(all).toHaveLength(6);
      for (const refused of all.slice(0, 5)) {
        expect(refused.text).toContain("Refused by the user's policy (policies.deny)");
        expect(refused.text).not.toContain(RESOURCE_TEXT);
      }
      expect(all[5]!.text, "a server no rule names still answers").toContain(RESOURCE_TEXT);
    }, 120_000);

    it("a codemode script's nested calls are matched the same way: pi's tool by the managed spelling, the resource tool by its server", async () => {
      piMcpJson();
      writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultTools: ["+codemode"] }));
      governorConfig({ preset: "lean", policies: { deny: ["acme_*"] } });
      const code = [
        `const read = await tools.read_mcp_resource({ server: "acme", uri: ${JSON.stringify(RESOURCE_URI)} }).then((r) => JSON.stringify(r), (e) => "rejected: " + e.message);`,
        `const echo = await tools.mcp__acme__echo({ message: "nested" }).then((r) => JSON.stringify(r), (e) => "rejected: " + e.message);`,
        "return { read, echo };",
      ].join("\n");
      const r = await run([{ toolCall: call("codemode", { code }) }, { text: "done" }]);
      const [script] = results(r);
      expect(script!.text).toContain("Script completed");
      expect(script!.text).not.toContain(RESOURCE_TEXT);
      expect(script!.text).not.toContain("Echo: nested");
      expect(script!.text.match(/rejected: Refused by the user's policy \(policies\.deny\)/g)).toHaveLength(2);
    }, 120_000);

    it("a listing without a server is refused while a denied server an extension registered is still connecting", async () => {
      piMcpJson({}, {});
      const slow = faultyServer({ mode: "slow-start", slowMs: 4_000 });
      try {
        governorConfig({ preset: "lean", policies: { deny: ["mcp__vault__*"] } });
        const vault = { command: slow.command, args: slow.args, env: slow.env, exposure: "codemode" };
        const r = await runPiCli({
          extensions: [join(repoRoot, "test/fixtures/register-mcp-server.ts"), repoRoot],
          script: [{ toolCalls: [call("list_mcp_resources", {}), call("list_mcp_resource_templates", {})] }, { text: "done" }],
          prompt: "go",
          cwd: project,
          env: {
            PI_CODING_AGENT_DIR: agentDir,
            PI_GOVERNOR_PRESET: undefined,
            PI_GOVERNOR_CONFIG: undefined,
            PI_GOVERNOR_REGISTER_MCP: JSON.stringify({ vault }),
          },
          timeoutMs: 90_000,
        });
        expect(r.code, r.stderr).toBe(0);
        for (const listing of results(r)) {
          expect(listing.text).toContain("Refused by the user's policy (policies.deny)");
          expect(listing.text).toMatch(/vault\\" among them/);
        }
      } finally {
        slow.cleanup();
      }
    }, 120_000);

    it("the same resource read runs when no rule names the server (the test reads real text)", async () => {
      piMcpJson();
      governorConfig({ preset: "lean" });
      const r = await run([{ toolCall: call("read_mcp_resource", { server: "acme", uri: RESOURCE_URI }) }, { text: "done" }]);
      expect(results(r)[0]!.text).toContain(RESOURCE_TEXT);
    }, 120_000);
  });
});
