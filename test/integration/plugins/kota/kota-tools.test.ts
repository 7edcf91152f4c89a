/**
 * The kota plugin through a real MCP transport: the KotaDB stand-in over stdio, on a git fixture
 * repo. Checks the index flow (confirmation, single flight, staleness), the rendered answers (compact,
 * summary-first, under 5 KB) and the error paths.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentText, definePreset, type Governor } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { kota } from "../../../../plugins/kota/index.ts";
import { recordingUi } from "./harness.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { REAL_KOTADB } from "../../../fixtures/kotadb-standin/command.ts";
import { callLogIn, standinCalls, standinKotaConfig } from "../../../helpers/kota-standin.ts";

let repo: FixtureRepo;
let work: string;
let governor: Governor | undefined;

async function build(kotaConfig: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<Governor> {
  const preset = definePreset({ name: "kota-only", description: "", commandRoot: "kota", plugins: () => [kota()] });
  governor = await createGovernor({
    preset,
    cwd: repo.root,
    agentDir: join(work, "agent"),
    layers: [{ kind: "global", source: "test", data: { kota: standinKotaConfig({ KOTADB_STANDIN_LOG: callLogIn(work), ...env }, kotaConfig) } }],
  });
  return governor;
}

async function call(g: Governor, tool: string, args: Record<string, unknown>) {
  const obs = await g.pipeline.callTool(tool, args);
  return { obs, text: contentText(obs.content), bytes: Buffer.byteLength(contentText(obs.content)) };
}

async function shutdown(g: Governor): Promise<void> {
  await g.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: repo.root, reason: "quit" });
}

beforeEach(() => {
  repo = createFixtureRepo();
  work = mkdtempSync(join(tmpdir(), "kota-int-"));
});

afterEach(async () => {
  if (governor) await shutdown(governor);
  governor = undefined;
  repo.remove();
  rmSync(work, { recursive: true, force: true });
});

describe("kota tools over the stand-in", () => {
  it("asks before indexing, then answers deps, usages, impact, task context and search compactly", async () => {
    const g = await build();
    const ui = recordingUi(true);
    g.attachSession("s1", ui);

    const before = await call(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(before.obs.status).toBe("ERROR");
    expect(before.text).toMatch(/not indexed.*Call kota_index first/s);

    const indexed = await call(g, "kota_index", {});
    expect(indexed.obs.status).toBe("SUCCESS");
    expect(indexed.text).toMatch(/^Indexed .*13 files/);
    expect(ui.confirms).toHaveLength(1);
    expect(ui.confirms[0]).toMatch(/Index repository with KotaDB\?.*not indexed yet/s);
    expect(ui.statuses.get("kota")).toMatch(/^kota: running · repo: kota-fixture-\w+ · indexed: yes$/);

    const again = await call(g, "kota_index", {});
    expect(again.text).toMatch(/^Already indexed/);
    expect(ui.confirms).toHaveLength(1);

    const deps = await call(g, "kota_deps", { file_path: "./src/utils/math.ts", depth: 2 });
    expect(deps.text.split("\n")[0]).toBe("src/utils/math.ts (both, depth 2): 7 dependents, 0 dependencies.");
    expect(deps.text).toMatch(/Dependents, direct \(3\): src\/api\/handlers.ts, src\/index.ts, src\/utils\/format.ts/);
    expect(deps.text).not.toMatch(/test/); // include_tests defaults to false
    expect(deps.bytes).toBeLessThan(5_000);

    const usages = await call(g, "kota_usages", { symbol: "add" });
    expect(usages.text.split("\n")[0]).toMatch(/^add \(function\) defined at src\/utils\/math.ts:1: 4 usages in 2 files/);
    expect(usages.bytes).toBeLessThan(5_000);

    const impact = await call(g, "kota_impact", { change_type: "refactor", description: "rename add", files_to_modify: ["src/utils/math.ts"] });
    const impactLines = impact.text.split("\n");
    expect(impactLines[0]).toBe("Risk: LOW. Affected surface: 8 files (1 changed, 7 to review)."); // KotaDB lists direct and depth-2 dependents
    expect(impactLines[1]).toBe("Recommended tests to run (2): tests/math.test.ts, src/api/handlers.test.ts");
    expect(impact.bytes).toBeLessThan(5_000);
    // The raw KotaDB answer is larger than what reaches the model.
    expect((impact.obs.details.kota as { rawBytes: number }).rawBytes).toBeGreaterThan(impact.bytes);

    const task = await call(g, "kota_task_context", { files: ["src/utils/math.ts"] });
    expect(task.text.split("\n")[0]).toMatch(/^Task context for 1 file\(s\): 4 impacted/);
    expect(task.bytes).toBeLessThan(5_000);

    const search = await call(g, "kota_search", { query: "add" });
    expect(search.text).toMatch(/^Search "add": 4 result\(s\)\.\n/);
    expect(search.text).toMatch(/^src\/index.ts \(\d+ match(es)?\)$/m); // ranking and match counts differ between the stand-in and KotaDB
    const snippet = await call(g, "kota_search", { query: "formatSum", output: "snippet", context_lines: 0 });
    expect(snippet.text).toMatch(/src\/utils\/format.ts:\n {2}3: export function formatSum.*\n {2}4- /);

    const missing = await call(g, "kota_deps", { file_path: "src/nope.ts" });
    expect(missing.obs.status).toBe("SUCCESS");
    expect(missing.text).toMatch(/^File not found: src\/nope.ts\. Make sure the repository is indexed\. Check the path/);

    const calls = standinCalls(callLogIn(work));
    expect(calls.filter((c) => c.name === "index_repository")).toHaveLength(1);
    expect(calls.find((c) => c.name === "index_repository")!.args).toEqual({ repository: repo.root, localPath: repo.root });
    const snippetCall = calls.find((c) => c.name === "search" && c.args.output === "snippet")!;
    expect(snippetCall.args.context_lines).toBe(1); // 0 would mean 3 to KotaDB
  });

  it("runs one index at a time: concurrent requests share one slow run and one confirmation", async () => {
    const g = await build({}, { KOTADB_STANDIN_INDEX_DELAY_MS: "800" });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    const [a, b] = await Promise.all([call(g, "kota_index", {}), call(g, "kota_index", { force: true })]);
    expect(a.text).toMatch(/^Indexed/);
    expect(b.text).toMatch(/already in progress/);
    expect(ui.confirms).toHaveLength(1);
    expect(standinCalls(callLogIn(work)).filter((c) => c.name === "index_repository")).toHaveLength(1);
  });

  it("a declined confirmation, and print mode without permission, tell the model how to proceed", async () => {
    const g = await build();
    const declining = recordingUi(false);
    g.attachSession("s1", declining);
    expect((await call(g, "kota_index", {})).text).toMatch(/user declined indexing.*Do not call kota_index again/);
    g.attachSession("s1", recordingUi(true, false));
    expect((await call(g, "kota_index", {})).text).toMatch(/no UI \(print mode\).*\/kota index.*"indexWithoutUi": "allow"/s);
    expect(standinCalls(callLogIn(work)).filter((c) => c.name === "index_repository")).toHaveLength(0);
  });

  it("indexWithoutUi allow indexes in print mode without asking", async () => {
    const g = await build({ indexWithoutUi: "allow" });
    g.attachSession("s1", recordingUi(false, false));
    expect((await call(g, "kota_index", {})).text).toMatch(/^Indexed/);
  });

  it("warns once when HEAD moves after indexing, and the status line says stale", async () => {
    const g = await build({ confirmIndex: false });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    await call(g, "kota_index", {});
    repo.commit("src/utils/math.ts", "export function add(a: number, b: number): number {\n  return b + a;\n}\n");
    await new Promise((r) => setTimeout(r, 2_100)); // HEAD is re-read at most every 2 s
    const first = await call(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(first.text).toMatch(/Note: the KotaDB index was built at commit \w{8} and HEAD is now \w{8}/);
    const second = await call(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(second.text).not.toMatch(/Note:/);
    expect(ui.notes.filter((n) => /stale/.test(n))).toHaveLength(1);
    expect(ui.statuses.get("kota")).toMatch(/indexed: stale$/);
    await call(g, "kota_index", {});
    expect(ui.statuses.get("kota")).toMatch(/indexed: yes$/);
  });

  it("a missing runtime gives the model and the user (once) the fix, and /kota restart finds it once installed", async () => {
    const g = await build({ command: "bun", args: ["x", "kotadb@next", "--stdio"], env: { PATH: work } });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    const first = await call(g, "kota_deps", { file_path: "src/a.ts" });
    expect(first.obs.status).toBe("ERROR");
    expect(first.text).toMatch(/Install Bun \(`npm i -g bun`, or see https:\/\/bun.sh\)/);
    await call(g, "kota_search", { query: "x" });
    expect(ui.notes.filter((n) => /needs Bun/.test(n))).toHaveLength(1);
    expect(ui.statuses.get("kota")).toMatch(/^kota: stopped/);
  });

  it("a KotaDB that exits at start gives the model its stderr and the fix; the user is told once", async () => {
    const g = await build({
      command: process.execPath,
      args: ["-e", "process.stderr.write('error: kotadb@next not found in the registry\\n'); process.exit(1)"],
    });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    const first = await call(g, "kota_search", { query: "x" });
    expect(first.obs.status).toBe("ERROR");
    // The fix follows the stderr: a package that is not in the registry.
    expect(first.text).toMatch(
      /exited with code 1 during start.*kotadb@next not found in the registry.*KotaDB did not start .*The npm registry has no such package or version.*"kota\.args"/s,
    );
    await call(g, "kota_usages", { symbol: "x" });
    expect(ui.notes.filter((n) => /KotaDB did not start/.test(n))).toHaveLength(1);
    expect(ui.statuses.get("kota")).toMatch(/^kota: degraded/);
  });

  it("/kota status lists state, statistics and recent files; /kota restart restarts", async () => {
    const g = await build({ confirmIndex: false });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    await call(g, "kota_index", {});
    const ctx = { ui, cwd: repo.root, sessionId: "s1" };
    await g.pipeline.commands.get("kota status")!.command.handler("", ctx);
    const status = ui.notes.at(-1)!;
    expect(status).toMatch(/^kota: running · repo: .* · indexed: yes/);
    expect(status).toMatch(/Index: 13 files, \d+ symbols/); // the stand-in finds 14 symbols, KotaDB 16
    expect(status).toMatch(/Recently indexed files \(8\): package.json/);
    await g.pipeline.commands.get("kota restart")!.command.handler("", ctx);
    expect(ui.notes.at(-1)).toMatch(/KotaDB restarted\. kota: running .* indexed: yes/);
  });

  it("survives a KotaDB crash: the manager reconnects, the persisted index is still there, the status line shows the way", async () => {
    const pidFile = join(work, "kotadb.pid");
    const g = await build({ confirmIndex: false }, { KOTADB_STANDIN_PIDFILE: pidFile });
    const ui = recordingUi(true);
    g.attachSession("s1", ui);
    await call(g, "kota_index", {});
    const states: string[] = [];
    const seen = ui.setStatus;
    ui.setStatus = (k, t) => {
      if (t) states.push(t.split(" · ")[0]!);
      seen(k, t);
    };
    const firstPid = Number(readFileSync(pidFile, "utf8"));
    process.kill(firstPid, "SIGKILL");
    const after = await call(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(after.obs.status).toBe("SUCCESS");
    expect(after.text).toMatch(/^src\/utils\/math.ts \(both, depth 1\): 3 dependents/);
    expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(firstPid);
    expect(states).toContain("kota: reconnecting");
    expect(ui.statuses.get("kota")).toMatch(/^kota: running .* indexed: yes$/);
    // The model can see what happened: kota_status reports the reconnect, the new pid and the index.
    const status = await call(g, "kota_status", {});
    expect(status.text).toMatch(/^kota: running/);
    // Against a real KotaDB the pid file names KotaDB behind the test pass-through, whose pid the connection reports.
    expect(status.text).toMatch(new RegExp(`Connection: kota: running \\(pid ${REAL_KOTADB ? "\\d+" : readFileSync(pidFile, "utf8").trim()}\\)`));
    expect(status.text).toMatch(/reconnects \(1\): .* -> back after 1 attempt/);
    expect(status.text).toMatch(/Index: 13 files/);
  });
});
