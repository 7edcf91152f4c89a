/**
 * The stand-in against real KotaDB: test/fixtures/kotadb-standin/sample-calls.json holds real
 * tools/call exchanges with KotaDB 2.x on a 7-file sample repository (copied from the recorded
 * interface notes). This test rebuilds that repository, replays every recorded call against the
 * stand-in over stdio (raw SDK client, no pi-governor in between), and checks the answers have the
 * same shape (keys and value types at every depth) and, where the answer is a pure function of the
 * code, the same values. Rejections must match KotaDB's JSON-RPC errors exactly.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standinCommand } from "../../../fixtures/kotadb-standin/command.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";

interface Recorded {
  name: string;
  arguments: Record<string, unknown>;
  content?: Array<{ text: string; chars: number }>;
  error?: { message: string; code: number };
}
const samples = JSON.parse(readFileSync(new URL("../../../fixtures/kotadb-standin/sample-calls.json", import.meta.url), "utf8")) as {
  calls: Recorded[];
  larger_repo_calls: Recorded[];
};
const toolsList = JSON.parse(readFileSync(new URL("../../../fixtures/kotadb-standin/tools-list.json", import.meta.url), "utf8")) as {
  tools: Array<{ name: string; inputSchema: unknown }>;
};

/** The sample repository, rebuilt from what the recorded answers show (paths, lines, imports, symbols). */
const SAMPLE_REPO: Record<string, string> = {
  "package.json": '{ "name": "sample-repo", "version": "1.0.0" }\n',
  "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
  "src/config.ts":
    'export interface AppConfig {\n  name: string;\n  debug: boolean;\n}\n\nexport function loadConfig(): AppConfig {\n  return { name: "sample", debug: false };\n}\n',
  "src/index.ts":
    'import { loadConfig } from "./config";\nimport { formatSum } from "./utils/format";\nimport "./utils/math";\n\nexport function main(): string {\n  return loadConfig().name + formatSum(1, 2);\n}\n',
  "src/utils/format.ts": 'import { add } from "./math";\n\nexport function formatSum(a: number, b: number): string {\n  return `sum=${add(a, b)}`;\n}\n',
  "src/utils/math.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
  "tests/math.test.ts": 'import { add } from "../src/utils/math";\n\nif (add(1, 2) !== 3) throw new Error("add broken");\n',
};

/**
 * Where two JSON values differ in shape (keys and value types at every depth), as a list of paths.
 * Arrays match when every element of each has a same-shaped element in the other; an empty array
 * matches any array (the samples and the stand-in answer over slightly different files).
 */
function shapeDiff(a: unknown, b: unknown, path = "$"): string[] {
  const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(a) !== kind(b)) return [`${path}: ${kind(a)} vs ${kind(b)}`];
  if (Array.isArray(a) && Array.isArray(b)) {
    if (!a.length || !b.length) return [];
    const unmatched = (xs: unknown[], ys: unknown[]) => xs.filter((x) => !ys.some((y) => shapeDiff(x, y).length === 0));
    const left = unmatched(a, b);
    const right = unmatched(b, a);
    return left.length || right.length ? [`${path}[]: ${shapeDiff(left[0] ?? a[0], right[0] ?? b[0], `${path}[]`).join("; ")}`] : [];
  }
  if (kind(a) === "object") {
    const ka = Object.keys(a as object).sort();
    const kb = Object.keys(b as object).sort();
    if (ka.join() !== kb.join()) return [`${path}: keys ${ka.join(",")} vs ${kb.join(",")}`];
    return ka.flatMap((k) => shapeDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return [];
}

let repo: FixtureRepo;
let client: Client;

async function standin(name: string, args: Record<string, unknown>): Promise<{ json?: Record<string, unknown>; error?: { code: number; message: string } }> {
  try {
    const r = await client.callTool({ name, arguments: args });
    expect(r.isError).toBeFalsy();
    const content = r.content as Array<{ type: string; text: string }>;
    expect(content).toHaveLength(1);
    expect(content[0]!.text).toBe(JSON.stringify(JSON.parse(content[0]!.text), null, 2)); // pretty-printed JSON, one block
    return { json: JSON.parse(content[0]!.text) };
  } catch (error) {
    return { error: { code: (error as { code: number }).code, message: (error as Error).message } };
  }
}

beforeAll(async () => {
  repo = createFixtureRepo(SAMPLE_REPO);
  const { command, args } = standinCommand();
  client = new Client({ name: "contract", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, cwd: repo.root, stderr: "ignore" }));
  // The recorded session indexed first; paths in the samples are /home/user/sample-repo.
  await standin("index_repository", { repository: repo.root, localPath: repo.root });
});
afterAll(async () => {
  await client.close();
  repo.remove();
});

describe("KotaDB stand-in vs recorded KotaDB answers", () => {
  it("lists the eight core tools with KotaDB's exact input schemas", async () => {
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual([
      "search",
      "index_repository",
      "list_recent_files",
      "search_dependencies",
      "find_usages",
      "analyze_change_impact",
      "get_index_statistics",
      "generate_task_context",
    ]);
    for (const t of listed.tools) expect(t.inputSchema).toEqual(toolsList.tools.find((x) => x.name === t.name)!.inputSchema);
  });

  const complete = samples.calls.filter((c) => c.content && !c.content[0]!.text.includes("…[+"));
  it.each(complete.map((c) => [`${c.name} ${JSON.stringify(c.arguments)}`, c] as const))("%s: same shape", async (_label, recorded) => {
    const args = recorded.name === "index_repository" ? { repository: repo.root, localPath: repo.root } : recorded.arguments;
    const { json, error } = await standin(recorded.name, args);
    expect(error).toBeUndefined();
    expect(shapeDiff(json, JSON.parse(recorded.content![0]!.text))).toEqual([]);
  });

  it("answers the graph queries with the recorded values", async () => {
    const byName = (name: string, i = 0) => JSON.parse(samples.calls.filter((c) => c.name === name)[i]!.content![0]!.text);
    const exact = async (name: string, i: number) => {
      const recorded = samples.calls.filter((c) => c.name === name)[i]!;
      expect((await standin(name, recorded.arguments)).json).toEqual(byName(name, i));
    };
    await exact("search_dependencies", 0); // math.ts, both, depth 2 (with KotaDB's repeat of index.ts at depth 2)
    await exact("search_dependencies", 1); // index.ts dependencies
    await exact("search_dependencies", 2); // unknown file: a message, not an error
    await exact("find_usages", 0);

    const impact = (await standin("analyze_change_impact", samples.calls.find((c) => c.name === "analyze_change_impact")!.arguments)).json!;
    const recordedImpact = byName("analyze_change_impact");
    for (const key of ["affected_files", "test_scope", "architectural_warnings", "conflicts", "risk_level", "deployment_impact", "summary"])
      expect(impact[key]).toEqual(recordedImpact[key]);

    const task = (await standin("generate_task_context", { files: ["src/utils/math.ts"] })).json!;
    const recordedTask = byName("generate_task_context");
    expect(task.targetFiles).toEqual(recordedTask.targetFiles);
    expect(task.impactedFiles).toEqual(recordedTask.impactedFiles);
    expect(task.testFiles).toEqual(recordedTask.testFiles);

    const paths = (await standin("search", { query: "add", output: "paths", limit: 10 })).json!;
    expect(new Set((paths.results as { code: string[] }).code)).toEqual(new Set((byName("search", 0).results as { code: string[] }).code));
    const symbols = (await standin("search", { query: "loadConfig", scope: ["symbols"] })).json!;
    const { id: _a, repository_id: _b, ...mine } = (symbols.results as { symbols: Array<Record<string, unknown>> }).symbols[0]!;
    const { id: _c, repository_id: _d, ...theirs } = (byName("search", 3).results as { symbols: Array<Record<string, unknown>> }).symbols[0]!;
    expect(mine).toEqual(theirs);
    const stats = (await standin("get_index_statistics", {})).json!;
    // KotaDB indexed its cwd (a git repository) a second time, as "local/<folder>", on the first graph query: the
    // index above was made under the absolute path as name. pi-governor runs KotaDB outside the repository, where this never happens.
    expect([stats.files, stats.repositories]).toEqual([14, 2]);
  });

  it("rejects bad calls with KotaDB's JSON-RPC errors (-32603), never isError results", async () => {
    const recordedErrors = [...samples.calls, ...samples.larger_repo_calls].filter((c) => c.error && c.name !== "index_repository");
    expect(recordedErrors.length).toBe(3);
    for (const c of recordedErrors) expect((await standin(c.name, c.arguments)).error).toEqual({ code: -32603, message: c.error!.message });
    const outside = await standin("index_repository", { repository: "/tmp", localPath: "/tmp" });
    expect(outside.error).toEqual({ code: -32603, message: `MCP error -32603: localPath must be within workspace: ${repo.root}` });
  });

  it("search on an unindexed workspace returns empty results, not an error", async () => {
    const bare = createFixtureRepo({ "src/a.ts": "export const add = 1;\n" });
    const { command, args } = standinCommand();
    const other = new Client({ name: "contract-2", version: "1" });
    await other.connect(new StdioClientTransport({ command, args, cwd: bare.root, stderr: "ignore" }));
    try {
      const r = await other.callTool({ name: "search", arguments: { query: "add" } });
      const json = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
      expect(json.results).toEqual({ code: [] });
      expect(json.counts).toEqual({ total: 0, code: 0 });
    } finally {
      await other.close();
      bare.remove();
    }
  });
});
