/**
 * pi-governor as a team depends on it: `npm pack`, the tarball installed into an empty project, a
 * plugin written there against the package name, type-checked with tsc, tested with vitest, and
 * loaded into a real pi session (pi's CLI in print mode, the scripted provider) beside the default
 * preset's plugins. Plain Node and tsc resolve `pi-governor` to the compiled build (dist/); pi still
 * loads the package itself from its `.ts` extension.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npm, repoRoot, run } from "../../helpers/package-install.ts";
import { runPiCli } from "../../helpers/pi-cli.ts";
import { piHost } from "../../helpers/pi-host.ts";
import { newestSource } from "./sources.ts";

const work = mkdtempSync(join(tmpdir(), "gov-pack-"));
const team = join(work, "acme-governor");
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

/** The version of a package as installed here, so the team's install finds it in the npm cache. */
const installed = (name: string) => (JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** The team's dev tools: tsc, vitest and Node's types. */
const DEV_TOOLS = ["typescript", "vitest", "@types/node"];

const TEAM_FILES: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: ["node"],
    },
    include: ["src", "test", "extension.ts"],
  }),
  // The plugin: a tool of its own and a toolResult stage over every tool's result.
  "src/shout.ts": `import { Type } from "typebox";
import { z } from "zod";
import { definePlugin, RESULT_STAGE, type ToolResultValue } from "pi-governor";

export const shout = definePlugin({
  name: "acme:shout",
  configKey: "shout",
  description: "acme_shout upper-cases a text; every acme_ result is signed",
  schema: z.object({ suffix: z.string().max(20) }),
  defaults: { suffix: "!" },
  apply(pipeline, config) {
    pipeline.registerTool("acme:shout", {
      name: "acme_shout",
      description: "Upper-cases a text",
      parameters: Type.Object({ text: Type.String({ maxLength: 200 }) }),
      annotations: { readOnlyHint: true },
      async execute(call) {
        return { content: [{ type: "text", text: String(call.args.text).toUpperCase() + config.suffix }] };
      },
    });
    pipeline.hooks.toolResult.tap({ name: "acme:shout", stage: RESULT_STAGE.FORMAT }, (result: ToolResultValue) =>
      result.toolName.startsWith("acme_") ? { ...result, content: [...result.content, { type: "text", text: "-- acme" }] } : undefined);
  },
});
`,
  "test/shout.test.ts": `import { expect, it } from "vitest";
import { retry } from "pi-governor/plugins/retry/index.ts";
import { fakePiHost } from "pi-governor/testing";
import { shout } from "../src/shout.ts";

it("shouts through the governed pipeline, as pi would call it", async () => {
  const host = await fakePiHost({ plugins: [retry(), shout({ suffix: "?" })] });
  await host.start();
  const result = await host.callTool("acme_shout", { text: "hi" });
  expect(result.isError).toBe(false);
  expect(result.content).toEqual([{ type: "text", text: "HI?" }, { type: "text", text: "-- acme" }]);
  await host.shutdown();
});
`,
  // The pi extension: the default preset's plugins plus the team's.
  "extension.ts": `import { createExtension } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { kotaPreset } from "pi-governor/presets/kota/index.ts";
import { shout } from "./src/shout.ts";

export default createExtension(
  definePreset({ name: "acme", description: "kota + acme_shout", commandRoot: "kota", plugins: () => [...kotaPreset.plugins(), shout()] }),
);
`,
};

let tarball = "";
let packedFiles: string[] = [];
beforeAll(async () => {
  // The build npm pack ships: `prepack` runs `npm run build`; `npm test` has just run it, so it is
  // reused while no source is newer.
  const built = join(repoRoot, "dist", "core", "index.js");
  const fresh = existsSync(built) && statSync(built).mtimeMs >= newestSource(repoRoot);
  const packed = await npm(["pack", "--json", "--pack-destination", work, ...(fresh ? ["--ignore-scripts"] : [])], repoRoot, 300_000);
  const [pack] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(work, pack!.filename);
  packedFiles = pack!.files.map((f) => f.path);

  mkdirSync(team, { recursive: true });
  const manifest = {
    name: "acme-governor",
    private: true,
    type: "module",
    dependencies: { "pi-governor": `file:${tarball}`, zod: installed("zod"), typebox: installed("typebox") },
  };
  writeFileSync(join(team, "package.json"), JSON.stringify(manifest, null, 2));
  for (const [file, text] of Object.entries(TEAM_FILES)) {
    mkdirSync(join(team, file, ".."), { recursive: true });
    writeFileSync(join(team, file), text);
  }
  // --ignore-scripts: no better-sqlite3 build (on Node 20 the execution log is then off with a warning).
  await npm(["install", "--ignore-scripts"], team, 300_000);
  // The team's dev tools are not under test: linked from this repository's node_modules, after the
  // install (npm would prune them), instead of a second install of ~50 packages.
  for (const tool of DEV_TOOLS) {
    mkdirSync(join(team, "node_modules", tool, ".."), { recursive: true });
    symlinkSync(join(repoRoot, "node_modules", tool), join(team, "node_modules", tool), "dir");
  }
}, 600_000);

// Each step runs a child (node, tsc, vitest, pi) in the team's project: seconds, more on a busy machine.
describe("the packed pi-governor in a team's project", { timeout: 120_000 }, () => {
  it("ships the compiled build with declarations and the sources pi loads, and no tests", () => {
    const files = packedFiles;
    expect(files).toEqual(
      expect.arrayContaining([
        "dist/core/index.js",
        "dist/core/index.d.ts",
        "dist/host/index.d.ts",
        "dist/testing/index.js",
        "dist/host/index.js",
        "dist/presets/kota/index.js",
        "presets/kota/extension.ts",
        "bin/pi-governor.mjs",
        // The CLI runs from its sources (jiti): the replay and the sample it replays without sessions.
        "cli/replay/command.ts",
        "cli/replay/sample/session.jsonl",
      ]),
    );
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("dist/test/") || f.includes(".test."))).toEqual([]);
  });

  it("imports from plain Node: the package name (the SDK), the host entry, the testing kit, a shipped plugin and a preset", async () => {
    const script = `import * as gov from "pi-governor"; import * as host from "pi-governor/host"; import * as testing from "pi-governor/testing";
import { kotaPreset } from "pi-governor/presets/kota/index.ts"; import { retry } from "pi-governor/plugins/retry/index.ts";
console.log(JSON.stringify({ definePlugin: typeof gov.definePlugin, createGovernor: typeof gov.createGovernor, preset: kotaPreset.name, retry: retry().name, from: import.meta.resolve("pi-governor"),
  host: [typeof host.createExtension, typeof host.definePlugin], testing: typeof testing.fakePiHost, testingFrom: import.meta.resolve("pi-governor/testing") }));`;
    const node = await run(process.execPath, ["--input-type=module", "-e", script], team);
    expect(node.stderr).toBe("");
    expect(JSON.parse(node.stdout)).toEqual({
      definePlugin: "function",
      createGovernor: "undefined",
      preset: "kota",
      retry: "governor:retry",
      from: expect.stringMatching(/node_modules\/pi-governor\/dist\/core\/index\.js$/),
      host: ["function", "undefined"],
      testing: "function",
      testingFrom: expect.stringMatching(/node_modules\/pi-governor\/dist\/testing\/index\.js$/),
    });
    // Internals stay internal.
    const internal = await run(process.execPath, ["--input-type=module", "-e", `await import("pi-governor/host/governor.ts")`], team);
    expect(internal.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it("type-checks the team's plugin, test and extension with tsc", async () => {
    // One tsc run over the team's files and one deliberate mistake: the mistake is the only error,
    // so the rest type-checks against the shipped declarations, and the check can fail.
    writeFileSync(join(team, "src", "broken.ts"), `import { shout } from "./shout.ts";\nshout({ suffix: 3 });\n`);
    const tsc = await run(process.execPath, [join(team, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], team);
    rmSync(join(team, "src", "broken.ts"));
    expect(tsc.code).toBe(2);
    expect(tsc.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^src\/broken\.ts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/),
    ]);
  });

  it("its declarations name no pi (they compile with skipLibCheck off), and fit the pi under test's own types", async () => {
    // A team has only the pi it runs (pi 1.6's @earendil-works scope; 0.73's @mariozechner on the
    // legacy line). 1: every declaration file of pi-governor's public entries is checked (skipLibCheck
    // off) in a project that imports no pi: a declaration naming either scope fails to resolve (TS2307).
    // 2: with pi's own types (skipLibCheck on: pi's declarations are pi's business), createExtension is
    // an ExtensionFactory and bindGovernor takes an ExtensionAPI.
    const piDir = join(team, "node_modules", ...piHost.scope.split("/"), "pi-coding-agent");
    mkdirSync(join(piDir, ".."), { recursive: true });
    symlinkSync(piHost.codingAgentDir, piDir, "dir");
    const strict = join(team, "strict");
    const typed = join(team, "typed");
    const options = JSON.parse(TEAM_FILES["tsconfig.json"]!).compilerOptions as Record<string, unknown>;
    const files: Record<string, string> = {
      "strict/tsconfig.json": JSON.stringify({ compilerOptions: { ...options, skipLibCheck: false }, include: ["*.ts"] }),
      "strict/uses.ts": `import { createExtension, createGovernor } from "pi-governor/host";
import { definePlugin, definePreset } from "pi-governor";
import { fakePiHost } from "pi-governor/testing";
export const factory = createExtension(definePreset({ name: "t", description: "t", plugins: () => [] }));
export { createGovernor, definePlugin, fakePiHost };
`,
      "typed/tsconfig.json": JSON.stringify({ compilerOptions: options, include: ["*.ts"] }),
      "typed/extension.ts": `import type { ExtensionAPI, ExtensionFactory } from "${piHost.scope}/pi-coding-agent";
import { bindGovernor, createExtension, createGovernor } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { shout } from "../src/shout.ts";

const preset = definePreset({ name: "acme", description: "acme_shout", plugins: () => [shout()] });
export const factory: ExtensionFactory = createExtension(preset);
export async function bind(pi: ExtensionAPI): Promise<void> {
  bindGovernor(pi, await createGovernor({ preset, cwd: process.cwd(), agentDir: process.cwd(), layers: [] }));
}
`,
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(join(team, file, ".."), { recursive: true });
      writeFileSync(join(team, file), text);
    }
    try {
      for (const project of [strict, typed]) {
        const tsc = await run(process.execPath, [join(team, "node_modules", "typescript", "bin", "tsc"), "-p", join(project, "tsconfig.json")], team);
        expect({ project, out: tsc.stdout + tsc.stderr, code: tsc.code }).toEqual({ project, out: "", code: 0 });
      }
    } finally {
      for (const dir of [strict, typed, piDir]) rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the team's vitest test", async () => {
    const vitest = await run(process.execPath, [join(team, "node_modules", "vitest", "vitest.mjs"), "run"], team);
    expect(vitest.code, vitest.stdout + vitest.stderr).toBe(0);
    expect(vitest.stdout).toMatch(/1 passed/);
  });

  it("loads the team's extension into a real pi session beside the default preset", async () => {
    const result = await runPiCli({
      extensions: [join(team, "extension.ts")],
      cwd: team,
      script: [{ toolCall: { name: "acme_shout", arguments: { text: "hello pi" } } }, { text: "shouted" }],
      prompt: "shout hello pi",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("shouted");
    expect(result.calls[0]!.tools).toEqual(expect.arrayContaining(["acme_shout", "kota_search", "blob_read", "context_search"]));
    const toolResult = result.calls[1]!.messages.find((m) => m.role === "toolResult" && m.toolName === "acme_shout");
    expect(JSON.stringify(toolResult?.content)).toContain("HELLO PI!");
    expect(JSON.stringify(toolResult?.content)).toContain("-- acme");
  });
});
