/**
 * A second pi profile (PI_CODING_AGENT_DIR) is isolated: recall writes its blobs through the blobs
 * plugin's store (the `blobs:store` service) and keeps its index under the agent dir, so blob_read
 * finds what recall stored and two profiles share no index. Nothing lands under ~/.pi.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { contentText, definePreset, type GovernorPlugin } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { probeSqlite } from "../../../../lib/sqlite/index.ts";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { recall } from "../../../../plugins/recall/index.ts";

const fts = probeSqlite().fts5;
let root: string;
let home: string;
const shutdowns: Array<() => Promise<unknown>> = [];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pigov-recall-profile-"));
  home = join(root, "home");
  mkdirSync(home);
  vi.stubEnv("HOME", home); // os.homedir() reads it: the real ~/.pi stays untouched even on failure
});
afterEach(async () => {
  for (const s of shutdowns.splice(0)) await s();
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

async function profile(agentDir: string, cwd: string, plugins: () => GovernorPlugin<any>[] = () => [blobs(), recall()]) {
  mkdirSync(cwd, { recursive: true });
  const gov = await createGovernor({ preset: definePreset({ name: "profile-test", description: "", plugins }), cwd, agentDir, env: {}, layers: [] });
  const id = `s-${Math.random()}`;
  gov.attachSession(id, { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false });
  await gov.pipeline.hooks.sessionStart.run({ sessionId: id, cwd, reason: "startup" });
  shutdowns.push(() => gov.pipeline.hooks.sessionShutdown.run({ sessionId: id, cwd, reason: "quit" }));
  return {
    gov,
    result: (text: string) =>
      gov.pipeline.hooks.toolResult.run(
        {
          toolName: "bash",
          toolCallId: `c-${Math.random()}`,
          input: { command: "make" },
          content: [{ type: "text", text }],
          details: undefined,
          isError: false,
        },
        { tool: undefined, sessionId: id },
      ),
    call: async (name: string, args: Record<string, unknown>) =>
      contentText((await gov.pipeline.callTool(name, args, { sessionId: id, toolCallId: `t-${Math.random()}` })).content),
  };
}

describe.skipIf(!fts)("recall in a second pi profile", () => {
  it("stores and indexes under the agent dir; blob_read reads what recall stored; nothing under ~/.pi", async () => {
    const agentDir = join(root, "profile-b");
    const p = await profile(agentDir, join(root, "project"));
    const out = await p.result("build log: compiled kestrelModule in 12 ms");
    const answer = await p.call("context_search", { query: "kestrelModule" });
    const call = answer.match(/blob_read\((\{.*?\})\)/)?.[1];
    expect(call).toBeDefined();
    // the hit names the stored blob by the first 12 hex digits of its id; blob_read finds it from them
    expect(String(out.details!.blobId)).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(call!).blobId).toBe(String(out.details!.blobId).slice(0, 12));
    expect(await p.call("blob_read", JSON.parse(call!) as Record<string, unknown>)).toContain("compiled kestrelModule in 12 ms");
    const cache = join(agentDir, "cache", "pi-governor");
    expect(existsSync(join(cache, "recall", "index.db"))).toBe(true);
    expect(existsSync(join(cache, "blobs", `${out.details!.blobId}.txt`))).toBe(true);
    expect(existsSync(join(home, ".pi"))).toBe(false);
  });

  it("two profiles share no index", async () => {
    const cwd = join(root, "project");
    const a = await profile(join(root, "profile-a"), cwd);
    await a.result("only in profile a: puffinMarker");
    expect(await a.call("context_search", { query: "puffinMarker", scope: "project" })).toContain("«puffinMarker»");
    const b = await profile(join(root, "profile-b"), cwd);
    expect(await b.call("context_search", { query: "puffinMarker", scope: "project" })).not.toContain("puffinMarker»");
  });

  it("recall needs the blobs plugin's store: without it recall is not applied and the problem names the service", async () => {
    const p = await profile(join(root, "profile-c"), join(root, "project"), () => [recall()]);
    expect(p.gov.pipeline.tools.has("context_search")).toBe(false);
    expect([...p.gov.problems(), ...p.gov.degraded()].join("\n")).toContain('"blobs:store"');
  });
});
