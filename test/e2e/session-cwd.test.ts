/**
 * The session's cwd, not the process's: the real pi session runtime (the layer pi's modes use for
 * /new, /resume, /fork) runs the default preset in a fixture repository that is not process.cwd(),
 * and then resumes a session of another repository. Config layers, the kota tools (over the KotaDB
 * stand-in, which indexes its own cwd), autoContext and the KotaDB child follow the session.
 */
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { skipWithoutSqlite } from "../helpers/sqlite-available.ts";
import { createExtension } from "pi-governor/host";
import type { Governor } from "pi-governor";
import { liveChildCount } from "../../lib/mcp/index.ts";
import { kotaPreset, mcpPreset, presetsExcept } from "../../presets/index.ts";
import { createFixtureRepo, FIXTURE_FILES, type FixtureRepo } from "../fixtures/kota-repo.ts";
import { toolResultsIn } from "../helpers/kota-e2e.ts";
import { callLogIn, standinCalls, standinKotaConfig } from "../helpers/kota-standin.ts";
import { startPiRuntime, startPiSession, type PiTestRuntime } from "../helpers/pi-session.ts";

const ONLY_A = "src/alpha/only-a.ts";
const ONLY_B = "src/beta/only-b.ts";

let pi: PiTestRuntime | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await pi?.dispose();
  pi = undefined;
  for (const c of cleanups.splice(0)) c();
});

/** A fixture repo with one file of its own and a project config (`.pi/pi-governor.json`). */
function repoWith(file: string, marker: string, projectConfig: Record<string, unknown>): FixtureRepo {
  const repo = createFixtureRepo({
    ...FIXTURE_FILES,
    [file]: `import { add } from "../utils/math";\n\nexport function ${marker}(): number {\n  return add(1, 2);\n}\n`,
    ".pi/pi-governor.json": `${JSON.stringify(projectConfig, null, 2)}\n`,
  });
  cleanups.push(() => repo.remove());
  return repo;
}

/** A session file of `cwd` with no entries yet: what `/resume` offers for another project. */
function sessionFileFor(dir: string, cwd: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "other-project.jsonl");
  writeFileSync(
    path,
    `${JSON.stringify({ type: "session", version: 3, id: "0b9a1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d", timestamp: new Date().toISOString(), cwd })}\n`,
  );
  return path;
}

/** The pi-governor message (autoContext briefing) of the last prompt, or "". */
function lastBriefing(pi: PiTestRuntime): string {
  const messages = pi.runtime.session.messages as Array<{ role: string; customType?: string; content?: unknown }>;
  const custom = messages.filter((m) => m.role === "custom" && m.customType === "pi-governor").at(-1);
  return custom ? JSON.stringify(custom.content) : "";
}

describe("a pi session whose cwd is not the process's", () => {
  it("reads that repository's project config, indexes and searches it, and follows a /resume into another repository", async (ctx) => {
    skipWithoutSqlite(ctx);
    // autoContext's deadline covers starting KotaDB: generous, so a loaded machine still gets the briefing.
    const repoA = repoWith(ONLY_A, "alphaOnly", { kota: { autoContext: "onPaths" }, autoContext: { timeoutMs: 30_000 } });
    const repoB = repoWith(ONLY_B, "betaOnly", { kota: { autoContext: "onPaths" }, autoContext: { timeoutMs: 30_000 }, prune: { notAKey: 1 } });
    for (const root of [repoA.root, repoB.root]) expect(root).not.toBe(realpathSync(process.cwd()));
    const work = mkdtempSync(join(tmpdir(), "pigov-cwd-"));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    // The trusted global file starts the stand-in; the KotaDB command comes only from there.
    const agentDir = join(work, "agent");
    mkdirSync(agentDir, { recursive: true });
    const log = callLogIn(work);
    writeFileSync(
      join(agentDir, "pi-governor.json"),
      JSON.stringify({ kota: standinKotaConfig({ KOTADB_STANDIN_LOG: log, KOTADB_STANDIN_CLOSE_DELAY_MS: "0" }), blobs: { dir: ".pigov-blobs" } }),
    );

    const governors: Governor[] = [];
    const env = { ...process.env, PI_GOVERNOR_CONFIG: undefined, PI_GOVERNOR_PRESET: undefined };
    const extension = createExtension(kotaPreset, {
      presets: presetsExcept(kotaPreset),
      onGovernor: (g) => governors.push(g),
      governorOptions: { agentDir, env },
    });
    pi = await startPiRuntime({
      extensions: [extension],
      cwd: repoA.root,
      responses: [
        fauxAssistantMessage([fauxToolCall("kota_index", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("kota_search", { query: "alphaOnly", output: "paths" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done in A")]),
      ],
    });

    // Repository A: its project config applies (autoContext on), the briefing is about its file.
    await pi.runtime.session.prompt(`what does ${ONLY_A} do?`);
    const resultsA = toolResultsIn(pi.runtime.session.messages as unknown[]);
    expect(resultsA.find((r) => r.toolName === "kota_index")!.text).toContain(repoA.root);
    expect(resultsA.find((r) => r.toolName === "kota_search")!.text).toContain(ONLY_A);
    expect(lastBriefing(pi)).toContain(ONLY_A);
    const inA = governors.at(-1)!;
    expect(inA.services.cwd).toBe(repoA.root);
    expect(inA.config.sources.join(" ")).toContain(join(repoA.root, ".pi", "pi-governor.json"));
    expect(pi.ui.notifications.filter((n) => n.level === "warning")).toEqual([]);
    // A relative blob dir (global config) lies in the session's repository; /kota answers from there.
    await pi.runtime.session.prompt("/kota blobs");
    expect(pi.ui.notifications.at(-1)!.message).toContain(`Blob cache: ${join(repoA.root, ".pigov-blobs")}`);
    const callsInA = standinCalls(log).length;
    expect(callsInA).toBeGreaterThan(0);
    expect(liveChildCount()).toBe(1);

    // /resume of a session of repository B: pi rebuilds its services for B and reloads extensions.
    await pi.runtime.switchSession(sessionFileFor(join(work, "other-sessions"), repoB.root));
    expect(pi.runtime.cwd).toBe(repoB.root);
    // The old session's KotaDB child is gone; nothing of A is still running.
    expect(liveChildCount()).toBe(0);
    const warnings = pi.ui.notifications.filter((n) => n.level === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toContain(`${join(repoB.root, ".pi", "pi-governor.json")}: prune.notAKey`);

    await pi.runtime.session.prompt("/kota blobs");
    expect(pi.ui.notifications.at(-1)!.message).toContain(`Blob cache: ${join(repoB.root, ".pigov-blobs")}`);

    pi.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("kota_index", {})], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("kota_search", { query: "betaOnly", output: "paths" })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText("done in B")]),
    ]);
    await pi.runtime.session.prompt(`what does ${ONLY_B} do?`);
    const inB = governors.at(-1)!;
    expect(inB.services.cwd).toBe(repoB.root);
    const resultsB = toolResultsIn(pi.runtime.session.messages as unknown[]);
    // autoContext indexed B for the briefing already (an index of A would not name B's root).
    const indexB = resultsB.find((r) => r.toolName === "kota_index")!.text;
    expect(indexB).toContain(repoB.root);
    const searchB = resultsB.find((r) => r.toolName === "kota_search")!.text;
    expect(searchB).toContain(ONLY_B);
    expect(searchB).not.toContain(ONLY_A);
    expect(lastBriefing(pi)).toContain(ONLY_B);
    expect(standinCalls(log).length).toBeGreaterThan(callsInA);
  }, 90_000);

  it("a project config that picks another preset: the tools of the load-time guess that the session's preset lacks are deactivated", async () => {
    const repo = repoWith(ONLY_A, "alphaOnly", { preset: "lean" });
    const work = mkdtempSync(join(tmpdir(), "pigov-cwd-"));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));
    // The preset is a trusted key: the user lets this repository's config choose it.
    mkdirSync(join(work, "agent"), { recursive: true });
    writeFileSync(join(work, "agent", "pi-governor.json"), JSON.stringify({ allowProjectSpawnConfig: true }));
    const env = { ...process.env, PI_GOVERNOR_CONFIG: undefined, PI_GOVERNOR_PRESET: undefined };
    const governors: Governor[] = [];
    const extension = createExtension(kotaPreset, {
      presets: presetsExcept(kotaPreset),
      onGovernor: (g) => governors.push(g),
      governorOptions: { agentDir: join(work, "agent"), env },
    });
    const session = await startPiSession({
      extensions: [extension],
      cwd: repo.root,
      ui: true,
      responses: [
        fauxAssistantMessage([fauxToolCall("kota_search", { query: "alphaOnly" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("ok")]),
      ],
    });
    try {
      // Built twice: the kota preset at load (process.cwd() has no project config), lean for the session.
      expect(governors.map((g) => g.preset.name)).toEqual(["kota", "lean"]);
      const active = session.session.getActiveToolNames();
      expect(active).toContain("blob_read");
      expect(active.filter((n) => n.startsWith("kota_"))).toEqual([]);
      // A model that calls one anyway (from an older turn) gets pi's error for an inactive tool, and no KotaDB starts.
      await session.session.prompt("search alphaOnly");
      const result = toolResultsIn(session.session.messages as unknown[]).find((r) => r.toolName === "kota_search")!;
      expect(result.text).toMatch(/kota_search not found/);
      expect(liveChildCount()).toBe(0);
    } finally {
      await session.dispose();
    }
  }, 60_000);

  it('an MCP server without its own cwd starts in the session\'s cwd (the real server-filesystem, allowed directory ".")', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), "pigov-mcp-cwd-")));
    cleanups.push(() => rmSync(project, { recursive: true, force: true }));
    const require = createRequire(import.meta.url);
    const server = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
    const layers = [
      {
        kind: "global" as const,
        source: "test",
        data: { mcp: { servers: { fs: { command: process.execPath, args: [server, "."], connectTimeoutMs: 20_000 } } } },
      },
    ];
    const session = await startPiSession({
      extensions: [createExtension(mcpPreset, { governorOptions: { layers } })],
      cwd: project,
      responses: [fauxAssistantMessage([fauxToolCall("fs_list_allowed_directories", {})], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("ok")])],
    });
    try {
      await session.session.prompt("which directories may you read?");
      const result = toolResultsIn(session.session.messages as unknown[]).find((r) => r.toolName === "fs_list_allowed_directories")!;
      expect(result.text).toContain(project);
      expect(result.text).not.toContain(realpathSync(process.cwd()));
    } finally {
      await session.dispose();
    }
    expect(liveChildCount()).toBe(0);
  }, 60_000);
});
