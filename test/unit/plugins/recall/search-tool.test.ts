/**
 * context_search reads other projects' outputs only when the user's global config allows it: by
 * default (and when only a project file asks) the tool's schema offers "session" and "project", a
 * call with scope "all" is refused, and nothing recorded in another repository comes back.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor } from "pi-governor";
import { createGovernor, type ConfigLayer } from "pi-governor/host";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { recall } from "../../../../plugins/recall/index.ts";

const fts = probeSqlite().fts5;
const dirs: string[] = [];
const governors: Array<{ gov: Governor; id: string; cwd: string }> = [];
afterEach(async () => {
  for (const g of governors.splice(0)) await g.gov.pipeline.hooks.sessionShutdown.run({ sessionId: g.id, cwd: g.cwd, reason: "quit" });
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A governor in project `name` of `root` (shared index and blobs), with extra config layers. */
async function project(root: string, name: string, layers: ConfigLayer[] = []) {
  const cwd = join(root, name);
  mkdirSync(cwd, { recursive: true });
  const base: ConfigLayer = {
    kind: "global",
    source: "global test",
    data: { blobs: { dir: join(root, "blobs") }, recall: { dbPath: join(root, "recall", "index.db") } },
  };
  const preset = definePreset({ name: "scope-test", description: "", plugins: () => [blobs(), recall()] });
  const gov = await createGovernor({ preset, cwd, agentDir: join(root, "agent"), env: {}, layers: [base, ...layers] });
  const id = `session-${name}`;
  gov.attachSession(id, { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false });
  await gov.pipeline.hooks.sessionStart.run({ sessionId: id, cwd, reason: "startup" });
  governors.push({ gov, id, cwd });
  return {
    gov,
    scopes: () => {
      const params = gov.pipeline.tools.get("context_search")!.definition.parameters as { properties: { scope: { enum: string[] } } };
      return params.properties.scope.enum;
    },
    result: (text: string) =>
      gov.pipeline.hooks.toolResult.run(
        { toolName: "bash", toolCallId: `c-${name}`, input: { command: "cat .env" }, content: [{ type: "text", text }], details: undefined, isError: false },
        { tool: undefined, sessionId: id },
      ),
    search: async (args: Record<string, unknown>) =>
      contentText((await gov.pipeline.callTool("context_search", args, { sessionId: id, toolCallId: `s-${Math.random()}` })).content),
  };
}

function root(): string {
  const dir = mkdtempSync(join(tmpdir(), "pigov-recall-scope-"));
  dirs.push(dir);
  return dir;
}

describe.skipIf(!fts)("context_search scopes", () => {
  it("by default offers session and project only; scope all is refused and another project's output never comes back", async () => {
    const r = root();
    const victim = await project(r, "victim");
    await victim.result("private note: hunter2-otterVault");
    await victim.search({ query: "flush" }); // writes the victim's row
    const attacker = await project(r, "attacker");
    expect(attacker.scopes()).toEqual(["session", "project"]);
    const all = await attacker.search({ query: "otterVault", scope: "all" });
    expect(all).toMatch(/scope must be one of "session", "project"/);
    expect(all).not.toContain("hunter2");
    expect(await attacker.search({ query: "otterVault", scope: "project" })).not.toContain("hunter2");
  });

  it("a project file cannot turn on searchAllProjects (trusted key); the global file can", async () => {
    const r = root();
    const victim = await project(r, "victim");
    await victim.result("private note: hunter2-otterVault");
    await victim.search({ query: "flush" });
    const fromProject = await project(r, "cloned", [{ kind: "project", source: "cloned/.pi/pi-governor.json", data: { recall: { searchAllProjects: true } } }]);
    expect(fromProject.scopes()).toEqual(["session", "project"]);
    expect(fromProject.gov.problems().join("\n")).toMatch(/recall\.searchAllProjects.*ignored/);
    const trusted = await project(r, "mine", [{ kind: "global", source: "global opt-in", data: { recall: { searchAllProjects: true } } }]);
    expect(trusted.scopes()).toEqual(["session", "project", "all"]);
    expect(await trusted.search({ query: "otterVault", scope: "all" })).toContain("private note: hunter2-«otterVault»");
  });
});
