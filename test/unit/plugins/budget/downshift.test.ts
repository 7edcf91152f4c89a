import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { TOOL_STAGE, definePlugin, definePreset, textContent, type ToolCallContext } from "pi-governor";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyRung, budget, clampArgs } from "../../../../plugins/budget/index.ts";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { KOTA_BUDGET_TOOLS } from "../../../../presets/kota/budget-policy.ts";

/** A search tool whose answer size the test decides per argument set; records every call it gets. */
function searchTool(
  sizeOf: (args: Record<string, unknown>) => number | Error,
  seen: Array<Record<string, unknown>>,
  contexts: ToolCallContext[],
  tags: string[] = [],
  body: (size: number) => string = (size) => "x".repeat(size),
) {
  return definePlugin({
    name: "test:search",
    configKey: "search",
    description: "",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      // Outside the budget stage: sees the outer call only once.
      pipeline.hooks.toolCall.tap({ name: "test:outer", stage: TOOL_STAGE.RETRY }, (next) => (call) => next(call));
      // Right above the transport: sees every re-issue with its own context.
      pipeline.hooks.toolCall.tap({ name: "test:inner", stage: TOOL_STAGE.TRANSPORT }, (next) => (call) => {
        contexts.push(call);
        return next(call);
      });
      pipeline.registerTool("test:search", {
        name: "kota_search",
        description: "",
        tags,
        parameters: Type.Object({}),
        execute: async (call) => {
          seen.push({ ...call.args });
          const size = sizeOf(call.args as Record<string, unknown>);
          if (size instanceof Error) throw size;
          return { content: textContent(body(size)) };
        },
      });
    },
  });
}

async function build(
  config: Record<string, unknown>,
  sizeOf: (args: Record<string, unknown>) => number | Error,
  tags: string[] = [],
  withBlobs = false,
  body?: (size: number) => string,
) {
  const seen: Array<Record<string, unknown>> = [];
  const contexts: ToolCallContext[] = [];
  const preset = definePreset({
    name: "t",
    description: "",
    plugins: () => [budget({ perTool: KOTA_BUDGET_TOOLS }), ...(withBlobs ? [blobs()] : []), searchTool(sizeOf, seen, contexts, tags, body)()],
  });
  const gov = await createGovernor({ preset, cwd: "/", agentDir: "/nonexistent", env: {}, layers: [{ kind: "global", source: "t", data: config }] });
  expect(gov.problems()).toEqual([]);
  return { gov, seen, contexts };
}

const text = (content: Array<{ type: string; text?: string }>) => content.map((b) => b.text ?? "").join("\n");

describe("budget plugin", () => {
  it("clamps capped arguments and says so", async () => {
    const { gov, seen } = await build({}, () => 100);
    const obs = await gov.pipeline.callTool("kota_search", { query: "q", limit: 500, context_lines: 9 });
    expect(seen).toEqual([{ query: "q", limit: 50, context_lines: 5 }]);
    expect(text(obs.content)).toMatch(/^\[budget: kota_search limit 500 -> 50, context_lines 9 -> 5 \(hard caps\)\]\n/);
    expect(obs.meta.budget).toMatchObject({
      maxBytes: 5_000,
      clamped: [
        { arg: "limit", from: 500, to: 50 },
        { arg: "context_lines", from: 9, to: 5 },
      ],
    });
  });

  it("does nothing but record the budget when the answer fits", async () => {
    const { gov, seen } = await build({}, () => 1_000);
    const obs = await gov.pipeline.callTool("kota_search", { query: "q" });
    expect(seen).toHaveLength(1);
    expect(text(obs.content)).toBe("x".repeat(1_000));
    expect(obs.meta.budget).toEqual({ maxBytes: 5_000 });
  });

  it("measures every cheaper answer instead of assuming an order, and picks the first that fits", async () => {
    // Like KotaDB: fewer context lines can give a LARGER answer; a lower limit then fits.
    const sizes = (a: Record<string, unknown>) => (a.output === "paths" ? 500 : a.limit === 10 ? 9_000 : a.context_lines === 1 ? 80_000 : 50_000);
    const { gov, seen, contexts } = await build({ budget: { perTool: { kota_search: { maxBytes: 10_000 } } } }, sizes);
    const obs = await gov.pipeline.callTool("kota_search", { query: "q", output: "snippet", limit: 30, context_lines: 3 });
    expect(seen).toEqual([
      { query: "q", output: "snippet", limit: 30, context_lines: 3 },
      { query: "q", output: "snippet", limit: 30, context_lines: 1 },
      { query: "q", output: "snippet", limit: 10, context_lines: 1 },
    ]);
    expect(obs.status).toBe("SUCCESS");
    const out = text(obs.content);
    expect(out.endsWith("x".repeat(9_000))).toBe(true);
    expect(out).toContain("[budget: kota_search answered 50,000 bytes, over its 10,000-byte budget; shown: limit=10, context_lines=1 (9,000 bytes)]\n");
    // The answer fit: no how-to-get-more hint (and without the blobs plugin, no blob pointer).
    expect(out).not.toContain("To get more");
    expect(out).not.toContain("blob_read");
    expect(obs.meta.budget).toMatchObject({
      fitted: true,
      shown: 2,
      downshift: [{ bytes: 50_000 }, { change: "context_lines=1", bytes: 80_000 }, { change: "limit=10", bytes: 9_000 }],
    });
    // Every request reached the transport with its own call context.
    expect(new Set(contexts).size).toBe(3);
  });

  it("shows the smallest answer seen when nothing fits, and the blobs stage gets its budget", async () => {
    const sizes = (a: Record<string, unknown>) => (a.output === "paths" ? 30_000 : a.limit === 10 ? 20_000 : 40_000);
    const { gov } = await build({ budget: { perTool: { kota_search: { maxBytes: 10_000 } } } }, sizes);
    const obs = await gov.pipeline.callTool("kota_search", { query: "q" });
    const out = text(obs.content);
    expect(out.endsWith(`\n${"x".repeat(20_000)}`)).toBe(true);
    expect(out).toMatch(
      /^\[budget: kota_search answered 40,000 bytes, over its 10,000-byte budget; none fit; smallest shown: context_lines=1, limit=10 \(20,000 bytes\)\]\nTo get more: narrow the query/,
    );
    expect(obs.meta.budget).toMatchObject({ maxBytes: 10_000, fitted: false, shown: 2 });
  });

  it("skips rungs that change nothing, and a failed rung does not end the downshift", async () => {
    const sizes = (a: Record<string, unknown>) => (a.output === "paths" ? 100 : a.limit === 10 ? new Error("boom") : 50_000);
    const { gov, seen } = await build({}, sizes);
    const obs = await gov.pipeline.callTool("kota_search", { query: "q", context_lines: 0 });
    // context_lines 0 is already below the rung's 1: never re-issued unchanged.
    expect(seen.map((a) => [a.context_lines, a.limit, a.output])).toEqual([
      [0, undefined, undefined],
      [0, 10, undefined],
      [0, 10, "paths"],
    ]);
    expect(text(obs.content)).toMatch(/shown: limit=10, output="paths" \(100 bytes\)\]/);
    expect(obs.meta.budget?.downshift).toEqual([
      { change: "", bytes: 50_000 },
      { change: "limit=10", bytes: null },
      { change: 'output="paths"', bytes: 100 },
    ]);
  });

  it("keeps the largest answer that fits: fewer whole results before bare paths, the first full answer in the blob cache, a short note", async () => {
    // Like a KotaDB snippet search for a common word: about 577 bytes per snippet (10 snippets: 5,928 bytes).
    const sizes = (a: Record<string, unknown>) => (a.output === "paths" ? 300 : 158 + 577 * Number(a.limit ?? 22));
    const dir = mkdtempSync(join(tmpdir(), "budget-fit-"));
    try {
      const { gov, seen } = await build({ blobs: { dir } }, sizes, [], true);
      const obs = await gov.pipeline.callTool("kota_search", { query: "config", output: "snippet", limit: 22 });
      // limit 10 (5,928 bytes) is over the budget with the note's room: 7 by proportion fits, 8 does not; never paths.
      expect(seen.map((a) => a.limit)).toEqual([22, 22, 10, 7, 8]);
      expect(seen.some((a) => a.output === "paths")).toBe(false);
      const out = text(obs.content);
      const [note, pointer] = out.split("\n");
      expect(note).toBe("[budget: kota_search answered 12,852 bytes, over its 5,000-byte budget; shown: limit=7, context_lines=1 (4,197 bytes)]");
      expect(note!.length).toBeLessThan(150);
      expect(pointer).toMatch(/^\[blob: 12,852 bytes stored; blob_read\(\{"blobId":"[0-9a-f]{12}"\}\) for more\]$/);
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(5_000);
      // The stored blob is the first, full answer; the result names it for the blobs stage and pruning.
      const shortId = /"blobId":"([0-9a-f]{12})"/.exec(pointer!)![1]!;
      // The write runs outside the attempt's timeout; the result stage waits for it.
      await gov.pipeline.hooks.toolResult.run(
        { toolName: "kota_search", toolCallId: "c", input: {}, content: obs.content, details: {}, isError: false },
        { tool: gov.pipeline.tools.get("kota_search")!.info, sessionId: "s" },
      );
      const id = obs.meta.blob!.id ?? "";
      expect(id.startsWith(shortId)).toBe(true);
      expect(readFileSync(join(dir, `${id}.txt`), "utf8")).toBe("x".repeat(12_852));
      expect(obs.meta.blob).toMatchObject({ truncated: true, originalBytes: 12_852, excerptBytes: 4_197 });
      expect(obs.meta.budget).toMatchObject({ fitted: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stores the first full answer redacted (this stage sees the answer before the redact stage does)", async () => {
    const token = ["ghp", "_", "Budg3t".repeat(6)].join("");
    const sizes = (a: Record<string, unknown>) => (a.output === "paths" ? 300 : 158 + 577 * Number(a.limit ?? 22));
    const dir = mkdtempSync(join(tmpdir(), "budget-redact-"));
    try {
      const { gov } = await build({ blobs: { dir } }, sizes, [], true, (size) => `token ${token}\n${"x".repeat(size)}`);
      const obs = await gov.pipeline.callTool("kota_search", { query: "config", output: "snippet", limit: 22 });
      await gov.pipeline.hooks.toolResult.run(
        { toolName: "kota_search", toolCallId: "c", input: {}, content: obs.content, details: {}, isError: false },
        { tool: gov.pipeline.tools.get("kota_search")!.info, sessionId: "s" },
      );
      const id = obs.meta.blob!.id ?? "";
      // The id the result names is that of the stored (redacted) bytes.
      const stored = readFileSync(join(dir, `${id}.txt`), "utf8");
      expect(stored.startsWith("token [redacted:github-token]\n")).toBe(true);
      expect(
        readdirSync(dir)
          .map((f) => readFileSync(join(dir, f), "utf8"))
          .join(""),
      ).not.toContain(token);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("passes failures through and leaves rehydration tools alone", async () => {
    const { gov, seen } = await build({}, () => new Error("down"));
    const obs = await gov.pipeline.callTool("kota_search", { query: "q", limit: 99 });
    expect(obs.status).toBe("ERROR");
    expect(seen).toHaveLength(1);
    const rehydration = await build({}, () => 90_000, ["rehydration"]);
    const big = await rehydration.gov.pipeline.callTool("kota_search", { query: "q", limit: 99 });
    expect(rehydration.seen).toEqual([{ query: "q", limit: 99 }]);
    expect(big.meta.budget).toBeUndefined();
  });

  it("counts approximate tokens (characters / 4) as well as bytes", async () => {
    const { gov, seen } = await build({ budget: { maxTokens: 1_000 } }, (a) => (a.output === "paths" ? 3_000 : 8_000));
    const obs = await gov.pipeline.callTool("kota_search", { query: "q" });
    expect(seen.at(-1)).toMatchObject({ output: "paths" });
    expect(obs.meta.budget).toMatchObject({ maxBytes: 4_000, fitted: true });
  });
});

describe("budget argument helpers", () => {
  it("clampArgs returns the same object when nothing is over its cap", () => {
    const args = { limit: 5 };
    expect(clampArgs(args, { limit: 50 }).args).toBe(args);
  });
  it("applyRung only lowers numbers and reports no-ops", () => {
    expect(applyRung({ limit: 5 }, { limit: 10 })).toBeUndefined();
    expect(applyRung({ limit: 30 }, { limit: 10 })).toEqual({ limit: 10 });
    expect(applyRung({}, { limit: 10, output: "paths" })).toEqual({ limit: 10, output: "paths" });
  });
  it("exports the kota caps", () => {
    expect(KOTA_BUDGET_TOOLS.kota_search!.maxBytes).toBe(5_000); // search answers stay small; graph tools keep the global default
    expect(KOTA_BUDGET_TOOLS.kota_search!.caps).toEqual({ limit: 50, context_lines: 5 });
    expect(KOTA_BUDGET_TOOLS.kota_deps!.caps).toEqual({ depth: 3 });
    expect(KOTA_BUDGET_TOOLS.kota_search!.ladder).toEqual([{ context_lines: 1 }, { limit: 10 }, { output: "paths" }]);
  });
});
