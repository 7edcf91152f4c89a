import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  fileExistsUnder,
  findCycles,
  type ImportEdge,
  listSourceFiles,
  parseImports,
  placementViolations,
  pluginSurfaceUnder,
  REPLAY_DIR,
  REPO_ROOT,
  ruleViolations,
  scanImports,
  separationViolations,
  serviceNames,
} from "./import-graph.ts";

const edge = (from: string, to: string, names?: readonly string[]): ImportEdge => ({ from, to, kind: "static", line: 1, ...(names ? { names } : {}) });
const surface = pluginSurfaceUnder(REPO_ROOT);

describe("the import graph of core, host, lib, cli, plugins, presets and bin", () => {
  const edges = scanImports(REPO_ROOT);

  it("covers every layer, dynamic imports and the bin loader included", () => {
    const files = listSourceFiles(REPO_ROOT);
    for (const dir of ["core/", "host/", "lib/", "cli/", "plugins/", "presets/", "bin/"]) expect(files.some((f) => f.startsWith(dir))).toBe(true);
    expect(files.some((f) => f.startsWith("test/"))).toBe(false);
    expect(edges).toContainEqual(expect.objectContaining({ from: "bin/pi-governor.mjs", to: "cli/main.ts", kind: "dynamic" }));
    expect(edges).toContainEqual(expect.objectContaining({ from: "cli/write-schema.ts", to: "presets/index.ts", kind: "dynamic" }));
    expect(edges.length).toBeGreaterThan(300);
  });

  it("has no import cycle", () => {
    expect(findCycles(edges).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("keeps the layering rules (core is the kernel; lib, plugins and presets take the SDK's names from core/index.ts, presets also host/index.ts; plugins never the host; no plugin's internals from outside it)", () => {
    expect(ruleViolations(edges, fileExistsUnder(REPO_ROOT), surface)).toEqual([]);
  });

  it("reads the names each import takes, so the rules between plugins see them", () => {
    expect(edges).toContainEqual(expect.objectContaining({ from: "plugins/recall/index.ts", to: "plugins/blobs/index.ts", names: ["BLOB_STORE"] }));
  });

  it("keeps prune and fold apart: they meet only through the fold:ranges service and lib/context", () => {
    expect(separationViolations(edges)).toEqual([]);
    // Both really use the meeting point, so the rule is not vacuous.
    expect(edges).toContainEqual(expect.objectContaining({ from: "plugins/prune/index.ts", to: "lib/context/index.ts" }));
    expect(edges).toContainEqual(expect.objectContaining({ from: "plugins/fold/index.ts", to: "lib/context/index.ts" }));
  });

  it("keeps the replay CLI tooling: under cli/replay/ with its sample, reaching prune through plugins/prune/index.ts, in no plugin", () => {
    // Every file under plugins/, whatever its kind (a sample session is .jsonl).
    const pluginFiles = (readdirSync(join(REPO_ROOT, "plugins"), { recursive: true }) as string[]).map((f) => `plugins/${f.split("\\").join("/")}`);
    expect(placementViolations(pluginFiles)).toEqual([]);
    for (const file of ["command.ts", "simulate.ts", "sample/generate.ts", "sample/session.jsonl"])
      expect(existsSync(join(REPO_ROOT, REPLAY_DIR, file))).toBe(true);
    expect(edges).toContainEqual(expect.objectContaining({ from: "cli/main.ts", to: `${REPLAY_DIR}command.ts`, kind: "dynamic" }));
    const toPrune = edges.filter((e) => e.from.startsWith(REPLAY_DIR) && e.to.startsWith("plugins/prune/"));
    expect(toPrune.length).toBeGreaterThan(0);
    expect(new Set(toPrune.map((e) => e.to))).toEqual(new Set(["plugins/prune/index.ts"]));
    expect(edges.filter((e) => !e.from.startsWith("cli/") && !e.from.startsWith("bin/") && e.to.startsWith("cli/"))).toEqual([]);
  });
});

describe("the checker itself", () => {
  it("reads static, type-only, re-export, dynamic and loader imports with their lines, and skips packages", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'import { type C } from "./c.ts";',
      'export * from "./d.ts";',
      'import z from "zod";',
      'const e = await import("./e.ts");',
      'const f = await jiti.import("../f.ts");',
      'type G = import("./g.ts").G;',
      '// import { h } from "./h.ts";',
      "const s = \"import('./i.ts')\";",
      'import * as j from "./j.ts";',
      'import k, { l as m } from "./k.ts";',
      'export { n as o, type P } from "./n.ts";',
      'import "./q.ts";',
    ].join("\n");
    expect(parseImports("x/y.ts", text)).toEqual([
      { specifier: "./a.ts", kind: "static", line: 1, names: ["a"] },
      { specifier: "../b.ts", kind: "type", line: 2, names: ["B"] },
      { specifier: "./c.ts", kind: "type", line: 3, names: ["C"] },
      { specifier: "./d.ts", kind: "static", line: 4 },
      { specifier: "./e.ts", kind: "dynamic", line: 6 },
      { specifier: "../f.ts", kind: "dynamic", line: 7 },
      { specifier: "./g.ts", kind: "type", line: 8, names: ["G"] },
      { specifier: "./j.ts", kind: "static", line: 11 },
      { specifier: "./k.ts", kind: "static", line: 12, names: ["default", "l"] },
      { specifier: "./n.ts", kind: "static", line: 13, names: ["n", "P"] },
      { specifier: "./q.ts", kind: "static", line: 14, names: [] },
    ]);
  });

  it("reports each cycle once, as a path that starts and ends at the same file", () => {
    const cycles = findCycles([
      edge("plugins/kota/index-flow.ts", "plugins/kota/runtime.ts"),
      edge("plugins/kota/runtime.ts", "plugins/kota/index-flow.ts"),
      edge("core/a.ts", "core/b.ts"),
      edge("core/b.ts", "core/c.ts"),
      edge("core/c.ts", "core/a.ts"),
      edge("core/c.ts", "core/d.ts"),
      edge("lib/x.ts", "lib/x.ts"),
    ]);
    expect(cycles).toEqual([
      ["core/a.ts", "core/b.ts", "core/c.ts", "core/a.ts"],
      ["lib/x.ts", "lib/x.ts"],
      ["plugins/kota/index-flow.ts", "plugins/kota/runtime.ts", "plugins/kota/index-flow.ts"],
    ]);
    expect(findCycles([edge("core/a.ts", "core/b.ts"), edge("cli/main.ts", "core/a.ts")])).toEqual([]);
  });

  it("names each broken rule with the file, line and what to do", () => {
    const broken = ruleViolations([
      edge("core/host.ts", "lib/mcp/index.ts"),
      edge("lib/blobs/store.ts", "core/errors.ts"),
      edge("lib/mcp/x.ts", "plugins/retry/index.ts"),
      edge("plugins/auto-context/index.ts", "plugins/kota/git.ts"),
      edge("plugins/execution-log/stats-cli.ts", "cli/main.ts"),
      edge("presets/lean/index.ts", "presets/kota/extension.ts"),
      edge("presets/kota/extension.ts", "host/pi/extension.ts"),
      edge("plugins/blobs/excerpt.ts", "lib/blobs/read-lines.ts"),
      edge("core/index.ts", "core/errors.ts", ["GovernorError", "TimeoutError"]),
      edge("plugins/retry/index.ts", "core/errors.ts", ["TimeoutError", "errorText"]),
      edge("plugins/doctor/index.ts", "host/index.ts"),
      edge("lib/mcp/x.ts", "host/index.ts"),
      edge("host/pi/extension.ts", "plugins/retry/index.ts"),
      edge("core/index.ts", "host/index.ts"),
    ]);
    expect(broken).toEqual([
      "core/host.ts:1 imports lib/mcp/index.ts: core imports only core (the kernel depends on nothing above it)",
      "lib/blobs/store.ts:1 imports core/errors.ts: takes * (everything); a plugin, library or preset takes the SDK's names from core/index.ts (the plugin SDK)",
      "lib/mcp/x.ts:1 imports plugins/retry/index.ts: lib imports only lib and core/index.ts",
      "plugins/auto-context/index.ts:1 imports plugins/kota/git.ts: another plugin's internals; import plugins/kota/index.ts (or use a service)",
      "plugins/execution-log/stats-cli.ts:1 imports cli/main.ts: a plugin imports no preset and no cli",
      "presets/lean/index.ts:1 imports presets/kota/extension.ts: a preset imports no other preset; share a value beside its plugin (plugins/<name>/index.ts) or in lib/",
      "presets/kota/extension.ts:1 imports host/pi/extension.ts: a preset runs the kernel (extension.ts) only through host/index.ts",
      "plugins/blobs/excerpt.ts:1 imports lib/blobs/read-lines.ts: a library's internals; import lib/blobs/index.ts",
      "plugins/retry/index.ts:1 imports core/errors.ts: takes TimeoutError; a plugin, library or preset takes the SDK's names from core/index.ts (the plugin SDK)",
      "plugins/doctor/index.ts:1 imports host/index.ts: plugins and libraries never import the host",
      "lib/mcp/x.ts:1 imports host/index.ts: plugins and libraries never import the host",
      "host/pi/extension.ts:1 imports plugins/retry/index.ts: the host imports only core, lib and the host",
      "core/index.ts:1 imports host/index.ts: core imports only core (the kernel depends on nothing above it)",
    ]);
  });

  it("fails a plugin or a library that imports the host, however it imports it", () => {
    const host = (from: string, to: string, kind: ImportEdge["kind"]): ImportEdge => ({ from, to, kind, line: 3 });
    expect(
      ruleViolations([
        host("plugins/retry/index.ts", "host/governor.ts", "static"),
        host("plugins/prune/pruner.ts", "host/pi/extension.ts", "type"),
        host("plugins/kota/runtime.ts", "host/pi/session-governors.ts", "dynamic"),
        host("lib/mcp/managed-server.ts", "host/config/layers.ts", "static"),
      ]).filter((line) => line.includes("never import the host")),
    ).toEqual([
      "plugins/retry/index.ts:3 imports host/governor.ts: plugins and libraries never import the host",
      "plugins/prune/pruner.ts:3 imports host/pi/extension.ts: plugins and libraries never import the host",
      "plugins/kota/runtime.ts:3 imports host/pi/session-governors.ts: plugins and libraries never import the host",
      "lib/mcp/managed-server.ts:3 imports host/config/layers.ts: plugins and libraries never import the host",
    ]);
  });

  it("finds a plugin's import of the host in a scanned tree, as in the repository", () => {
    const root = mkdtempSync(join(tmpdir(), "import-graph-"));
    try {
      for (const [file, text] of [
        ["host/governor.ts", "export const createGovernor = 1;\n"],
        ["host/index.ts", 'export { createGovernor } from "./governor.ts";\n'],
        ["core/index.ts", "export const definePlugin = 1;\n"],
        ["plugins/acme/index.ts", 'import { definePlugin } from "../../core/index.ts";\nimport type { createGovernor } from "../../host/index.ts";\n'],
      ] as const) {
        mkdirSync(dirname(join(root, file)), { recursive: true });
        writeFileSync(join(root, file), text);
      }
      expect(ruleViolations(scanImports(root), fileExistsUnder(root))).toEqual([
        "plugins/acme/index.ts:2 imports host/index.ts: plugins and libraries never import the host",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("allows what the layering allows", () => {
    expect(
      ruleViolations([
        edge("host/pi/extension.ts", "host/governor.ts"),
        edge("host/governor.ts", "core/pipeline.ts"),
        edge("core/index.ts", "core/errors.ts", ["GovernorError"]),
        edge("lib/mcp/managed-server.ts", "core/index.ts"),
        edge("plugins/retry/index.ts", "core/index.ts"),
        edge("plugins/retry/index.ts", "core/services.ts", ["sleep"]),
        edge("presets/kota/index.ts", "core/index.ts"),
        edge("presets/kota/extension.ts", "host/index.ts"),
        edge("cli/doctor.ts", "core/index.ts"),
        edge("lib/mcp/managed-server.ts", "lib/mcp/errors.ts"),
        edge("plugins/mcp-servers/index.ts", "lib/mcp/index.ts"),
        edge("plugins/auto-context/index.ts", "plugins/kota/index.ts"),
        edge("plugins/kota/runtime.ts", "plugins/kota/render/deps.ts"),
        edge("presets/index.ts", "presets/kota/index.ts"),
        edge("presets/kota/extension.ts", "presets/index.ts"),
        edge("presets/lean/index.ts", "plugins/blobs/index.ts"),
        edge("cli/main.ts", "cli/replay/command.ts"),
        edge("cli/replay/policies.ts", "plugins/prune/index.ts"),
        edge("cli/replay/command.ts", "presets/index.ts"),
        edge("cli/doctor.ts", "plugins/doctor/checks.ts"),
        edge("cli/write-schema.ts", "host/config/json-schema.ts"),
        edge("bin/pi-governor.mjs", "cli/main.ts"),
      ]),
    ).toEqual([]);
  });

  it("names an import between plugins that must stay apart, either way, and only between them", () => {
    expect(
      separationViolations([
        edge("plugins/prune/pruner.ts", "plugins/fold/index.ts"),
        edge("plugins/fold/nudge.ts", "plugins/prune/pruner.ts"),
        edge("cli/replay/policies.ts", "plugins/fold/index.ts"),
        edge("plugins/prune/index.ts", "lib/context/index.ts"),
        edge("plugins/fold/index.ts", "plugins/blobs/index.ts"),
      ]),
    ).toEqual([
      "plugins/prune/pruner.ts:1 imports plugins/fold/index.ts: plugins/prune and plugins/fold meet only through their service and a shared lib module",
      "plugins/fold/nudge.ts:1 imports plugins/prune/pruner.ts: plugins/fold and plugins/prune meet only through their service and a shared lib module",
    ]);
  });

  it("keeps the replay out of the plugins and the layers below cli, and off prune's internals", () => {
    expect(
      ruleViolations([
        edge("plugins/prune/pruner.ts", "cli/replay/simulate.ts"),
        edge("presets/kota/prune-policy.ts", "cli/replay/policies.ts"),
        edge("lib/pi/find.ts", "cli/replay/session-file.ts"),
        edge("core/size.ts", "cli/replay/cache-model.ts"),
        edge("cli/replay/hindsight.ts", "plugins/prune/pruner.ts"),
        edge("cli/replay/sample/generate.ts", "plugins/prune/fold/index.ts"),
      ]),
    ).toEqual([
      "plugins/prune/pruner.ts:1 imports cli/replay/simulate.ts: a plugin imports no preset and no cli",
      "presets/kota/prune-policy.ts:1 imports cli/replay/policies.ts: a preset imports no cli",
      "lib/pi/find.ts:1 imports cli/replay/session-file.ts: lib imports only lib and core/index.ts",
      "core/size.ts:1 imports cli/replay/cache-model.ts: core imports only core (the kernel depends on nothing above it)",
      "cli/replay/hindsight.ts:1 imports plugins/prune/pruner.ts: the replay reaches a plugin only through its index.ts; import plugins/prune/index.ts (export what it needs there)",
      "cli/replay/sample/generate.ts:1 imports plugins/prune/fold/index.ts: the replay reaches a plugin only through its index.ts; import plugins/prune/index.ts (export what it needs there)",
    ]);
    expect(
      placementViolations([
        "plugins/prune/replay/simulate.ts",
        "plugins/prune/replay/sample/session.jsonl",
        "plugins/prune/replay.ts",
        "plugins/x/replay-cli.ts",
      ]),
    ).toEqual([
      "plugins/prune/replay/simulate.ts: the replay is CLI tooling; it lives in cli/replay/, not in a plugin",
      "plugins/prune/replay/sample/session.jsonl: the replay is CLI tooling; it lives in cli/replay/, not in a plugin",
      "plugins/prune/replay.ts: the replay is CLI tooling; it lives in cli/replay/, not in a plugin",
      "plugins/x/replay-cli.ts: the replay is CLI tooling; it lives in cli/replay/, not in a plugin",
    ]);
    expect(
      placementViolations([
        "plugins/recall/writer.ts",
        "plugins/recall/spill-replayer.ts",
        "cli/replay/simulate.ts",
        "test/unit/plugins/prune/replay/x.test.ts",
      ]),
    ).toEqual([]);
  });

  it("flags an import of a file that does not exist", () => {
    expect(ruleViolations([edge("plugins/kota/index.ts", "plugins/kota/gone.ts")], fileExistsUnder(REPO_ROOT))).toEqual([
      "plugins/kota/index.ts:1 imports plugins/kota/gone.ts: no such file",
    ]);
  });

  it("a preset imports no other preset: only the list of presets takes them, and a preset's extension takes the list", () => {
    expect(
      ruleViolations([
        edge("presets/lean/index.ts", "presets/kota/index.ts"),
        edge("presets/mcp/index.ts", "presets/index.ts"),
        edge("presets/index.ts", "presets/kota/prune-policy.ts"),
      ]),
    ).toEqual([
      "presets/lean/index.ts:1 imports presets/kota/index.ts: a preset imports no other preset; share a value beside its plugin (plugins/<name>/index.ts) or in lib/",
      "presets/mcp/index.ts:1 imports presets/index.ts: a preset imports no other preset; share a value beside its plugin (plugins/<name>/index.ts) or in lib/",
      "presets/index.ts:1 imports presets/kota/prune-policy.ts: a preset imports no other preset; share a value beside its plugin (plugins/<name>/index.ts) or in lib/",
    ]);
  });

  it("a plugin takes from another only its service keys, their types and its tools' names", () => {
    expect(
      serviceNames("x.ts", 'export const K = defineService<A<B>>("a:b", { providedBy: "x" });\nconst L = defineService<C>("c:d", {});\nexport const M = 1;'),
    ).toEqual(["K", "A", "B"]);
    expect(surface("plugins/kota")).toEqual(new Set(["KOTA_RUNTIME", "KotaRuntime"]));
    expect(
      ruleViolations(
        [
          edge("plugins/auto-context/index.ts", "plugins/kota/index.ts", ["KOTA_RUNTIME", "KotaRuntime"]),
          edge("plugins/prune/placeholder.ts", "plugins/blobs/index.ts", ["blobReadCall"]),
          edge("plugins/mcp-servers/tool-selection.ts", "plugins/recall/index.ts", ["CONTEXT_SEARCH_TOOL"]),
          edge("presets/kota/index.ts", "plugins/kota/index.ts", ["kota", "kotaLaunch"]),
        ],
        undefined,
        surface,
      ),
    ).toEqual([]);
    expect(
      ruleViolations(
        [
          edge("plugins/doctor/environment.ts", "plugins/kota/index.ts", ["KOTA_RUNTIME", "kotaLaunch"]),
          edge("plugins/recall/index.ts", "plugins/prune/index.ts", ["formatCall"]),
          edge("plugins/budget/index.ts", "plugins/blobs/index.ts"),
        ],
        undefined,
        surface,
      ),
    ).toEqual([
      "plugins/doctor/environment.ts:1 imports plugins/kota/index.ts: takes kotaLaunch; a plugin takes from another only its service keys, their types and its tools' names (KOTA_RUNTIME, KotaRuntime): use a service, or move what both need to lib/",
      "plugins/recall/index.ts:1 imports plugins/prune/index.ts: takes formatCall; a plugin takes from another only its service keys, their types and its tools' names (none): use a service, or move what both need to lib/",
      "plugins/budget/index.ts:1 imports plugins/blobs/index.ts: takes * (everything); a plugin takes from another only its service keys, their types and its tools' names (BLOB_STORE, BlobStore, BLOB_READ_TOOL, blobReadCall, blobMarker): use a service, or move what both need to lib/",
    ]);
  });
});
