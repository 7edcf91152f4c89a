/**
 * The whole default preset (execution-log, breaker, retry, timeout, budget, kota, autoContext, blobs,
 * prune) through a real MCP transport: the KotaDB stand-in over stdio on a git fixture repo.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { itWithSqlite } from "../../../helpers/sqlite-available.ts";
import { contentText, type Governor, type UiBridge } from "pi-governor";
import { createGovernor, observationDetails } from "pi-governor/host";
import { liveChildCount } from "../../../../lib/mcp/index.ts";
import { kotaPreset, leanPreset, mcpPreset, presets } from "../../../../presets/index.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { callLogIn, standinCalls, standinKotaConfig } from "../../../helpers/kota-standin.ts";

let repo: FixtureRepo;
let work: string;
let governor: Governor | undefined;

const silentYes: UiBridge = { hasUI: true, notify: () => {}, setStatus: () => {}, confirm: async () => true };

async function build(extra: Record<string, unknown> = {}, kotaExtra: Record<string, unknown> = {}): Promise<Governor> {
  governor = await createGovernor({
    preset: kotaPreset,
    presets: [leanPreset],
    cwd: repo.root,
    agentDir: join(work, "agent"),
    layers: [
      {
        kind: "global",
        source: "test",
        data: { kota: standinKotaConfig({ KOTADB_STANDIN_LOG: callLogIn(work) }, kotaExtra), blobs: { dir: join(work, "blobs") }, ...extra },
      },
    ],
  });
  governor.attachSession("s", silentYes);
  return governor;
}

/** A governed call as pi runs it: the tool through the pipeline, then the toolResult transforms. */
async function piCall(g: Governor, tool: string, args: Record<string, unknown>) {
  const obs = await g.pipeline.callTool(tool, args, { toolCallId: `c-${tool}-${Math.random()}` });
  const result = await g.pipeline.hooks.toolResult.run(
    { toolName: tool, toolCallId: "c", input: args, content: obs.content, details: observationDetails(obs), isError: obs.status !== "SUCCESS" },
    { tool: g.pipeline.tools.get(tool)?.info, sessionId: "s" },
  );
  return { obs, result, text: contentText(result.content) };
}

beforeEach(() => {
  repo = createFixtureRepo();
  work = mkdtempSync(join(tmpdir(), "kota-preset-"));
});
afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo.root, reason: "quit" });
  governor = undefined;
  expect(liveChildCount()).toBe(0); // no KotaDB child outlives the session
  repo.remove();
  rmSync(work, { recursive: true, force: true });
});

describe("the default kota preset through the stand-in", () => {
  itWithSqlite("assembles every plugin in order, with kota tools, blob_read and the /kota commands", async () => {
    const g = await build();
    expect(g.problems()).toEqual([]);
    expect(g.plugins.map((p) => [p.plugin.name, p.enabled])).toEqual([
      ["governor:redact", true],
      ["governor:execution-log", true],
      ["governor:policies", true],
      ["governor:breaker", true],
      ["governor:retry", true],
      ["governor:timeout", true],
      ["governor:budget", true],
      ["governor:kota", true],
      ["governor:auto-context", true],
      ["governor:blobs", true],
      ["governor:fold", true],
      ["governor:prune", true],
      ["governor:recall", true],
      ["governor:telemetry", false],
      ["governor:chaos", false],
      ["governor:doctor", true],
    ]);
    expect([...g.pipeline.tools.keys()].sort()).toEqual([
      "blob_read",
      "context_fold",
      "context_search",
      "kota_deps",
      "kota_impact",
      "kota_index",
      "kota_search",
      "kota_status",
      "kota_task_context",
      "kota_usages",
    ]);
    expect([...g.pipeline.commands.keys()].sort()).toEqual([
      "governor doctor",
      "kota blobs",
      "kota doctor",
      "kota index",
      "kota pin",
      "kota pruning",
      "kota purge-blobs",
      "kota purge-index",
      "kota recall",
      "kota redacted",
      "kota restart",
      "kota search",
      "kota status",
      "kota unfold",
    ]);
    const wrapOrder = g.pipeline.describe().toolCall!.map((t) => t.name);
    expect(wrapOrder.indexOf("governor:breaker")).toBeLessThan(wrapOrder.indexOf("governor:retry"));
    expect(wrapOrder.indexOf("governor:retry")).toBeLessThan(wrapOrder.indexOf("governor:budget"));
  });

  it("kota_impact leads with risk, stays under 5 KB and is pinned; a huge search is bounded with the full answer in a blob", async () => {
    const g = await build();
    expect((await piCall(g, "kota_index", {})).text).toMatch(/^Indexed/);
    const impact = await piCall(g, "kota_impact", { change_type: "refactor", description: "change add", files_to_modify: ["src/utils/math.ts"] });
    expect(impact.result.details?.pinned).toBe(true);
    expect(impact.text).toMatch(/^\[pinned[^\n]*\]\nRisk: LOW\. Affected surface: 8 files/);
    expect(Buffer.byteLength(impact.text)).toBeLessThan(5_000);

    for (const [tool, args] of [
      ["kota_deps", { file_path: "src/config.ts", depth: 3 }],
      ["kota_usages", { symbol: "loadConfig" }],
      ["kota_task_context", { files: ["src/auth/context.ts", "src/utils/format.ts"] }],
    ] as const) {
      const r = await piCall(g, tool, args);
      expect(r.obs.status).toBe("SUCCESS");
      expect(Buffer.byteLength(r.text)).toBeLessThan(5_000);
      expect(r.result.details?.pinned).toBeUndefined();
    }

    // Caps: the budget clamps what the schema would reject, and the stand-in never sees > 50 / > 5.
    const big = await piCall(g, "kota_search", { query: "export", output: "snippet", limit: 500, context_lines: 9 });
    expect(big.obs.status).toBe("SUCCESS");
    const sent = standinCalls(callLogIn(work)).filter((c) => c.name === "search");
    expect(Math.max(...sent.map((c) => Number(c.args.limit)))).toBeLessThanOrEqual(50);
    expect(Math.max(...sent.map((c) => Number(c.args.context_lines ?? 0)))).toBeLessThanOrEqual(5);
  });

  it("an answer over a tiny budget keeps the most whole results that fit, with the full answer in a blob", async () => {
    const g = await build({ budget: { tools: { kota_search: { maxBytes: 400 } } } });
    await piCall(g, "kota_index", {});
    const r = await piCall(g, "kota_search", { query: "export", output: "snippet", limit: 50, context_lines: 5 });
    expect(r.obs.status).toBe("SUCCESS");
    const sent = standinCalls(callLogIn(work)).filter((c) => c.name === "search");
    expect(sent.length).toBeGreaterThan(1); // re-issued cheaper
    // The most snippets that fit 400 bytes with the note and the way back in front of them.
    expect(r.text).toMatch(
      /^\[budget: kota_search answered [\d,]+ bytes, over its 400-byte budget; shown: limit=\d+, context_lines=1 \([\d,]+ bytes\)\]\n\[blob: [\d,]+ bytes stored; blob_read/,
    );
    const shown = Number(/^Search "export": (\d+) result/m.exec(r.text)![1]);
    expect(shown).toBeGreaterThanOrEqual(1);
    expect(sent.some((c) => c.args.limit === shown + 1 && c.args.output === "snippet")).toBe(true);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(400 + 200); // the blob pointer line is the only overshoot allowed
    const details = r.result.details as { blobId?: string; truncated?: boolean };
    expect(details.truncated).toBe(true);
    // The blob is the first, full answer: every snippet of every hit.
    const back = await piCall(g, "blob_read", { blobId: details.blobId!, unit: "bytes", limit: 12_000 });
    const all = Number(/Search "export": (\d+) result/.exec(back.text)![1]);
    expect(all).toBeGreaterThan(shown);
  });

  it("a KotaDB rejection (-32603) reaches the model as a classified error, and the call is not retried", async () => {
    const g = await build({}, { args: [...(standinKotaConfig().args as string[])], cwd: join(repo.root, "src") });
    const r = await piCall(g, "kota_index", {});
    expect(r.obs.status).toBe("ERROR");
    expect(r.text).toMatch(/localPath must be within workspace/);
    expect(r.obs.retries).toBe(0);
  });

  it("without Bun the kota tools explain the fix while blob_read, pruning and the rest keep working", async () => {
    const g = await build({}, { command: "bun", args: ["x", "kotadb@next", "--stdio", "--toolset", "core"], env: { PATH: work } });
    expect(g.problems()).toEqual([]);
    const r = await piCall(g, "kota_search", { query: "x" });
    expect(r.obs.status).toBe("ERROR");
    expect(r.text).toMatch(/KotaDB needs Bun.*npm i -g bun.*https:\/\/bun.sh/s);
    const blob = await piCall(g, "blob_read", { blobId: "0".repeat(64) });
    expect(blob.text).not.toMatch(/Bun/);
    // pruning still runs on the context
    const messages = await g.pipeline.hooks.context.run([{ role: "user", content: "hi" }], { sessionId: "s" });
    expect(messages).toHaveLength(1);
  });

  itWithSqlite("a config file can switch to the lean preset", async () => {
    governor = await createGovernor({
      preset: kotaPreset,
      presets: [leanPreset],
      cwd: repo.root,
      agentDir: join(work, "agent"),
      layers: [{ kind: "global", source: "g", data: { preset: "lean", blobs: { dir: join(work, "blobs") } } }],
    });
    expect(governor.preset.name).toBe("lean");
    expect([...governor.pipeline.tools.keys()]).toEqual(["blob_read", "context_fold", "context_search"]);
    expect(governor.problems()).toEqual([]);
  });

  it("a config file can switch to the mcp preset, which serves KotaDB's raw tools from config", async () => {
    const { command, args } = standinKotaConfig() as { command: string; args: string[] };
    governor = await createGovernor({
      preset: kotaPreset,
      presets: [leanPreset, mcpPreset],
      cwd: repo.root,
      agentDir: join(work, "agent"),
      layers: [
        {
          kind: "global",
          source: "g",
          data: {
            preset: "mcp",
            blobs: { dir: join(work, "blobs") },
            mcp: { servers: { kotadb: { command, args, cwd: repo.root, connectTimeoutMs: 20_000 } } },
          },
        },
      ],
    });
    expect(governor.preset.name).toBe("mcp");
    expect(governor.problems()).toEqual([]);
    expect([...governor.pipeline.tools.keys()]).toEqual(
      expect.arrayContaining(["kotadb_search", "kotadb_index_repository", "kotadb_get_index_statistics", "blob_read"]),
    );
    const stats = await governor.pipeline.callTool("kotadb_get_index_statistics", {});
    expect(contentText(stats.content)).toMatch(/"repositories": 0/);
    const rejected = await governor.pipeline.callTool("kotadb_search", {});
    expect(rejected.status).toBe("ERROR");
    expect(contentText(rejected.content)).toMatch(/Missing required parameter: query/);
  });

  it("lists every preset for schema generation", () => {
    expect(presets.map((p) => p.name)).toEqual(["kota", "lean", "mcp"]);
  });
});
