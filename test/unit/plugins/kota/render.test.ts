/**
 * The kota renderers on KotaDB's real answers (test/fixtures/kotadb-standin/sample-calls.json):
 * summary first, compact, and faithful to what KotaDB said.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderDeps } from "../../../../plugins/kota/render/deps.ts";
import { renderImpact } from "../../../../plugins/kota/render/impact.ts";
import { renderIndexRun, renderRecentFiles, renderStatistics } from "../../../../plugins/kota/render/index-stats.ts";
import { renderSearch } from "../../../../plugins/kota/render/search.ts";
import { renderTaskContext } from "../../../../plugins/kota/render/task-context.ts";
import { renderUsages } from "../../../../plugins/kota/render/usages.ts";
import { argsWithToolset } from "../../../../plugins/kota/config.ts";
import { clampInt } from "../../../../plugins/kota/caps.ts";
import { repoRelative } from "../../../../plugins/kota/tools.ts";
import { commandExists, kotaStartHint, missingCommandText } from "../../../../plugins/kota/runtime-check.ts";

interface Recorded {
  name: string;
  arguments: Record<string, unknown>;
  content?: Array<{ text: string }>;
}
const samples = JSON.parse(readFileSync(new URL("../../../fixtures/kotadb-standin/sample-calls.json", import.meta.url), "utf8")) as {
  calls: Recorded[];
  larger_repo_calls: Recorded[];
};
const answer = (name: string, i = 0, set: Recorded[] = samples.calls) =>
  JSON.parse(set.filter((c) => c.name === name)[i]!.content![0]!.text) as Record<string, unknown>;

describe("kota renderers on real KotaDB answers", () => {
  it("impact: risk, affected surface and tests first; KotaDB's duplicate test entries folded", () => {
    const text = renderImpact(answer("analyze_change_impact"));
    expect(text.split("\n").slice(0, 3)).toEqual([
      "Risk: LOW. Affected surface: 4 files (1 changed, 3 to review).",
      "Recommended tests to run (1): tests/math.test.ts",
      "Tests to consider adding (17): src/utils/math.test.ts, src/utils/math.spec.ts, src/utils/math.test.tsx, src/utils/math.spec.tsx, __tests__/math.test.ts, +12 more",
    ]);
    expect(text).toMatch(/Changed \(1\): src\/utils\/math.ts \(update; 3 direct \/ 1 indirect dependents\)/);
    expect(text).toMatch(/Review \(dependents\) \(3\): src\/index.ts, src\/utils\/format.ts, tests\/math.test.ts/);
    expect(text).toMatch(/KotaDB summary: Change type: refactor\. 4 files affected/);
    expect(Buffer.byteLength(text)).toBeLessThan(
      JSON.parse(samples.calls.find((c) => c.name === "analyze_change_impact")!.content![0]!.text).summary.length * 5,
    );
  });

  it("deps: counts first, then direct and indirect per direction, and unresolved packages", () => {
    expect(renderDeps(answer("search_dependencies", 0))).toBe(
      "src/utils/math.ts (both, depth 2): 4 dependents, 0 dependencies.\nDependents, direct (3): src/index.ts, src/utils/format.ts, tests/math.test.ts\nDependents, depth 2 (1): src/index.ts\nDependencies: none",
    );
    expect(renderDeps(answer("search_dependencies", 0, samples.larger_repo_calls))).toMatch(
      /^src\/index.ts \(dependencies, depth 1\): 16 dependencies\.\nDependencies, direct \(16\): src\/autocontext.ts.*\nUnresolved imports \(packages\) \(1\): @mariozechner\/pi-coding-agent$/s,
    );
    expect(renderDeps(answer("search_dependencies", 2))).toMatch(/^File not found: src\/nope.ts\. Make sure the repository is indexed\. Check the path/);
  });

  it("usages: definition and counts first, one line per usage", () => {
    expect(renderUsages(answer("find_usages"))).toBe(
      [
        "add (function) defined at src/utils/math.ts:1: 4 usages in 2 files (2 import, 2 call).",
        '  src/utils/format.ts:1 import: import { add } from "./math";',
        "  src/utils/format.ts:4 call: return `sum=${add(a, b)}`;",
        '  tests/math.test.ts:1 import: import { add } from "../src/utils/math";',
        '  tests/math.test.ts:3 call: if (add(1, 2) !== 3) throw new Error("add broken");',
      ].join("\n"),
    );
  });

  it("task context, search modes, index run, statistics and recent files", () => {
    const task = renderTaskContext(answer("generate_task_context"), 20);
    expect(task.split("\n")[0]).toBe("Task context for 1 file(s): 3 impacted, 0 test file(s).");
    expect(task).toMatch(/Recently indexed \(7\): package.json, src\/config.ts, src\/index.ts, src\/utils\/format.ts, src\/utils\/math.ts, \+2 more/);
    expect(renderSearch(answer("search", 0))).toBe('Search "add": 3 result(s).\ntests/math.test.ts\nsrc/utils/format.ts\nsrc/utils/math.ts');
    expect(renderSearch(answer("search", 1))).toMatch(/^Search "add": 3 result\(s\)\.\ntests\/math.test.ts \(1 matches\)/);
    expect(renderSearch(answer("search", 2))).toBe(
      [
        'Search "add": 2 result(s).',
        "tests/math.test.ts:",
        '  1: import { add } from "../src/utils/math";',
        '  3: if (add(1, 2) !== 3) throw new Error("add broken");',
        "src/utils/format.ts:",
        '  1: import { add } from "./math";',
        "  3- export function formatSum(a: number, b: number): string {",
        "  4: return `sum=${add(a, b)}`;",
        "  5- }",
      ].join("\n"),
    );
    expect(renderSearch(answer("search", 3))).toBe('Search "loadConfig": 1 result(s).\nloadConfig function src/config.ts:6 () => AppConfig');
    expect(renderSearch({ query: "x", results: { code: [] }, counts: { total: 0 } })).toMatch(
      /Nothing matched\. If the repository was never indexed, run kota_index/,
    );
    expect(renderIndexRun(answer("index_repository"), "/repo", 115)).toMatch(/^Indexed \/repo: completed in 0\.1s\. 7 files, 5 symbols, 14 references\./);
    expect(renderStatistics(answer("get_index_statistics"))).toBe("7 files, 5 symbols, 14 references in 1 repositories");
    expect(renderRecentFiles(answer("list_recent_files"), 2)).toBe("Recently indexed files (3): package.json, src/config.ts, +1 more");
  });

  it("every rendered answer is smaller than KotaDB's pretty JSON", () => {
    const renderers: Record<string, (a: Record<string, unknown>) => string> = {
      analyze_change_impact: renderImpact,
      search_dependencies: renderDeps,
      find_usages: renderUsages,
      generate_task_context: (a) => renderTaskContext(a, 20),
      search: renderSearch,
    };
    for (const c of samples.calls) {
      const render = renderers[c.name];
      if (!render || !c.content) continue;
      expect(Buffer.byteLength(render(JSON.parse(c.content[0]!.text))), c.name).toBeLessThan(Buffer.byteLength(c.content[0]!.text));
    }
  });
});

describe("kota argument helpers", () => {
  it("clamps to KotaDB's caps and maps paths onto the repo", () => {
    expect(clampInt(500, 1, 50, 15)).toBe(50);
    expect(clampInt(undefined, 1, 50, 15)).toBe(15);
    expect(clampInt(0, 1, 5, 1)).toBe(1);
    expect(repoRelative("/r", "/r/src/a.ts")).toBe("src/a.ts");
    expect(repoRelative("/r", "./src/a.ts")).toBe("src/a.ts");
    expect(repoRelative("/r", "/elsewhere/a.ts")).toBe("/elsewhere/a.ts");
    expect(argsWithToolset(["x", "kotadb@next", "--stdio", "--toolset", "core"], "default")).toEqual(["x", "kotadb@next", "--stdio", "--toolset", "default"]);
  });
});

describe("kota runtime checks", () => {
  it("finds commands on PATH without running them, and words the fixes", () => {
    expect(commandExists("node", process.env.PATH, "/")).toBe(true);
    expect(commandExists("node", "/nonexistent", "/")).toBe(false);
    expect(commandExists(process.execPath, undefined, "/")).toBe(true);
    expect(missingCommandText("bun", "/agent/pi-governor.json")).toMatch(
      /KotaDB needs Bun.*npm i -g bun.*https:\/\/bun.sh.*\/kota restart.*everything else \(pruning, blobs\) keeps working/,
    );
    expect(missingCommandText("kotadb", "/agent/pi-governor.json")).toMatch(/`kotadb` was not found.*"kota.command"/);
    expect(kotaStartHint("bun", ["x", "kotadb@next", "--stdio"], "/agent/pi-governor.json", { timedOut: true })).toMatch(
      /bun x downloads KotaDB from the npm registry.*bun add -g kotadb@next/,
    );
  });
});
