/**
 * Search answers stay small by default: on a 45-file repository a snippet search for a common word
 * comes back under 5 KB through kota_search's downshift ladder (default preset), keeping as many
 * whole snippets as fit, with the full answer one blob_read away. Graph answers are untouched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentText, type Governor } from "pi-governor";
import { createGovernor, observationDetails } from "pi-governor/host";
import { kotaPreset } from "../../../../presets/index.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { standinCalls, standinKotaConfig } from "../../../helpers/kota-standin.ts";

/** 45 small modules that import a shared config, the way an app's files do; `extra` config lines per service. */
function appFiles(extra = 0): Record<string, string> {
  const files: Record<string, string> = {
    "package.json": '{ "name": "app45", "version": "1.0.0", "type": "module" }\n',
    "src/config.ts":
      'export interface Config {\n  name: string;\n  retries: number;\n}\n\nexport function loadConfig(): Config {\n  return { name: "app", retries: 3 };\n}\n',
  };
  for (let i = 0; i < 43; i++) {
    files[`src/feature${i}/service.ts`] =
      `import { loadConfig, type Config } from "../config";\n\n/** Service ${i}: reads the config once. */\nexport class Service${i} {\n  private readonly config: Config = loadConfig();\n\n  run(input: string): string {\n    // the config decides how often we retry\n    for (let n = 0; n < this.config.retries; n++) if (input.length > n) return input.slice(n);\n    return this.config.name + input;\n  }\n}\n${Array.from({ length: extra }, (_, n) => `// config note ${n}: service ${i} reads config.retries and config.name from the shared config\n`).join("")}`;
  }
  return files;
}

let repo: FixtureRepo | undefined;
let work: string;
let governor: Governor | undefined;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "kota-search-"));
});
afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo?.root ?? "/", reason: "quit" });
  governor = undefined;
  repo?.remove();
  repo = undefined;
  rmSync(work, { recursive: true, force: true });
});

async function piCall(g: Governor, tool: string, args: Record<string, unknown>) {
  const obs = await g.pipeline.callTool(tool, args, { toolCallId: `c-${tool}-${Math.random()}` });
  const result = await g.pipeline.hooks.toolResult.run(
    { toolName: tool, toolCallId: "c", input: args, content: obs.content, details: observationDetails(obs), isError: obs.status !== "SUCCESS" },
    { tool: g.pipeline.tools.get(tool)?.info, sessionId: "s" },
  );
  return { obs, text: contentText(result.content) };
}

describe("kota_search answer size by default", () => {
  it("a snippet search for a common word on a 45-file repository answers under 5 KB, with the way back to all of it", async () => {
    repo = createFixtureRepo(appFiles());
    governor = await createGovernor({
      preset: kotaPreset,
      cwd: repo.root,
      agentDir: join(work, "agent"),
      layers: [{ kind: "global", source: "test", data: { kota: standinKotaConfig({}, { confirmIndex: false }), blobs: { dir: join(work, "blobs") } } }],
    });
    governor.attachSession("s", { hasUI: true, notify: () => {}, setStatus: () => {}, confirm: async () => true });
    expect((await piCall(governor, "kota_index", {})).text).toMatch(/^Indexed .*45 files/);

    const snippet = await piCall(governor, "kota_search", { query: "config", output: "snippet" });
    expect(snippet.obs.status).toBe("SUCCESS");
    const bytes = Buffer.byteLength(snippet.text);
    console.log(`kota_search snippet "config": ${bytes} bytes`);
    expect(bytes).toBeLessThan(5_000);
    expect(snippet.text).toMatch(/\nblob_read|blob_read\(/);
    expect(snippet.text).toMatch(/src\/feature\d+\/service.ts/);

    const compact = await piCall(governor, "kota_search", { query: "config" });
    console.log(`kota_search compact "config": ${Buffer.byteLength(compact.text)} bytes`);
    expect(Buffer.byteLength(compact.text)).toBeLessThan(5_000);

    // A graph answer is not cut: its budget is unchanged.
    const deps = await piCall(governor, "kota_deps", { file_path: "src/config.ts" });
    expect(deps.text).toMatch(/^src\/config.ts \(both, depth 1\): 43 dependents/);
  });
});

describe("kota_search keeps the largest answer that fits", () => {
  it("a snippet search whose 10 snippets are over the budget keeps fewer whole snippets, not bare paths; the first full answer is a blob", async () => {
    repo = createFixtureRepo(appFiles(3));
    governor = await createGovernor({
      preset: kotaPreset,
      cwd: repo.root,
      agentDir: join(work, "agent"),
      layers: [
        {
          kind: "global",
          source: "test",
          data: { kota: standinKotaConfig({ KOTADB_STANDIN_LOG: join(work, "calls.jsonl") }, { confirmIndex: false }), blobs: { dir: join(work, "blobs") } },
        },
      ],
    });
    governor.attachSession("s", { hasUI: true, notify: () => {}, setStatus: () => {}, confirm: async () => true });
    await piCall(governor, "kota_index", {});

    const snippet = await piCall(governor, "kota_search", { query: "config", output: "snippet" });
    const [note, pointer, ...answer] = snippet.text.split("\n");
    console.log(`${note}\n${Buffer.byteLength(snippet.text)} bytes in all`);
    const searches = standinCalls(join(work, "calls.jsonl")).filter((c) => c.name === "search");
    const sizes = (snippet.obs.meta.budget?.downshift ?? []).map((d) => `${d.change || "original"}: ${d.bytes}`);
    console.log(sizes.join("; "));
    // 10 snippets did not fit; fewer whole snippets did, and no request asked for bare paths.
    expect(searches.some((c) => c.args.output === "paths")).toBe(false);
    const shownLimit = Number(/limit=(\d+)/.exec(note!)![1]);
    expect(shownLimit).toBeGreaterThan(1);
    expect(shownLimit).toBeLessThan(10);
    // The largest that fits: one more snippet was asked for and did not fit.
    const tried = searches.map((c) => Number(c.args.limit));
    expect(tried).toContain(shownLimit + 1);
    expect(note).toMatch(/^\[budget: kota_search answered [\d,]+ bytes, over its 5,000-byte budget; shown: context_lines=1, limit=\d+ \([\d,]+ bytes\)\]$/);
    expect(note!.length).toBeLessThan(150);
    expect(answer.join("\n")).toMatch(new RegExp(`^Search "config": ${shownLimit} result\\(s\\)`));
    expect(Buffer.byteLength(snippet.text)).toBeLessThanOrEqual(5_000);

    // The way back: the first, full answer, whole.
    const blobId = /"blobId":"([0-9a-f]{12})"/.exec(pointer!)![1]!;
    const full = await piCall(governor, "blob_read", { blobId, unit: "bytes", limit: 12_000 });
    expect(full.text).toMatch(/Search "config": \d+ result\(s\)/);
    expect(Number(/Search "config": (\d+) result/.exec(full.text)![1])).toBeGreaterThan(shownLimit);
  });
});
