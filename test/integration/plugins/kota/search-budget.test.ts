/**
 * Search answers stay small by default: on a 45-file repository a snippet search for a common word
 * comes back under 5 KB through kota_search's downshift ladder (default preset), and the answer says
 * how to get more. Graph answers are untouched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentText, createGovernor, type Governor, observationDetails } from "../../../../core/index.ts";
import { kotaPreset } from "../../../../presets/index.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { standinKotaConfig } from "../../../helpers/kota-standin.ts";

/** 45 small modules that import a shared config, the way an app's files do. */
function appFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "package.json": '{ "name": "app45", "version": "1.0.0", "type": "module" }\n',
    "src/config.ts": "export interface Config {\n  name: string;\n  retries: number;\n}\n\nexport function loadConfig(): Config {\n  return { name: \"app\", retries: 3 };\n}\n",
  };
  for (let i = 0; i < 43; i++) {
    files[`src/feature${i}/service.ts`] = `import { loadConfig, type Config } from "../config";\n\n/** Service ${i}: reads the config once. */\nexport class Service${i} {\n  private readonly config: Config = loadConfig();\n\n  run(input: string): string {\n    // the config decides how often we retry\n    for (let n = 0; n < this.config.retries; n++) if (input.length > n) return input.slice(n);\n    return this.config.name + input;\n  }\n}\n`;
  }
  return files;
}

let repo: FixtureRepo;
let work: string;
let governor: Governor | undefined;

beforeEach(() => {
  repo = createFixtureRepo(appFiles());
  work = mkdtempSync(join(tmpdir(), "kota-search-"));
});
afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: repo.root, reason: "quit" });
  governor = undefined;
  repo.remove();
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
  it("a snippet search for a common word on a 45-file repository answers under 5 KB and says how to get more", async () => {
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
    expect(snippet.text).toMatch(/To get more: /);
    expect(snippet.text).toMatch(/src\/feature\d+\/service.ts/);

    const compact = await piCall(governor, "kota_search", { query: "config" });
    console.log(`kota_search compact "config": ${Buffer.byteLength(compact.text)} bytes`);
    expect(Buffer.byteLength(compact.text)).toBeLessThan(5_000);

    // A graph answer is not cut: its budget is unchanged.
    const deps = await piCall(governor, "kota_deps", { file_path: "src/config.ts" });
    expect(deps.text).toMatch(/^src\/config.ts \(both, depth 1\): 43 dependents/);
  });
});
