/**
 * KotaDB crashing (SIGKILL) while kota_index runs: the index call fails with the "not replayed"
 * error, later kota_* calls say the index was interrupted (not "not indexed yet"), the next one re-runs
 * it once by itself, and a second crash stops automatic re-runs (no crash loop). /kota status says so.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callLogIn, standinCalls } from "../../../helpers/kota-standin.ts";
import { callTool, KotaHarness, recordingUi } from "./harness.ts";

let h: KotaHarness;
beforeEach(() => {
  h = new KotaHarness();
});
afterEach(async () => {
  await h.dispose();
});

const indexCalls = () => standinCalls(callLogIn(h.work)).filter((c) => c.name === "index_repository").length;

/** Waits (bounded) until KotaDB received its `n`-th index request, then SIGKILLs it; returns the killed pid. */
async function killDuringIndex(pidFile: string, n: number): Promise<number> {
  const deadline = Date.now() + 15_000;
  while (indexCalls() < n || !existsSync(pidFile)) {
    if (Date.now() > deadline) throw new Error(`KotaDB never received index request ${n}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const pid = Number(readFileSync(pidFile, "utf8"));
  process.kill(pid, "SIGKILL");
  return pid;
}

async function setup() {
  const pidFile = join(h.work, "kotadb.pid");
  const g = await h.build({ confirmIndex: false }, { KOTADB_STANDIN_PIDFILE: pidFile, KOTADB_STANDIN_INDEX_DELAY_MS: "1500" });
  const ui = recordingUi(true);
  g.attachSession("s", ui);
  return { g, ui, pidFile };
}

describe("a KotaDB crash during indexing", () => {
  it("later kota_* calls say the index was interrupted, and the next one re-runs it once", async () => {
    const { g, ui, pidFile } = await setup();
    const index = callTool(g, "kota_index", {});
    await killDuringIndex(pidFile, 1);
    const failed = await index;
    expect(failed.obs.status).toBe("ERROR");
    expect(failed.text).toMatch(/not replayed/);
    expect(ui.notes.join("\n")).toMatch(/KotaDB crashed while indexing; the index is incomplete\. The next kota_\* call re-runs it once automatically/);
    expect(ui.statuses.get("kota")).toMatch(/indexed: no$/); // never "yes" on a partial index

    const deps = await callTool(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(deps.obs.status).toBe("SUCCESS");
    expect(deps.text).toMatch(/^src\/utils\/math.ts \(both, depth 1\): 3 dependents/);
    expect(deps.text).toMatch(/interrupted by a KotaDB crash; it was re-run once automatically and completed/);
    expect(indexCalls()).toBe(2);
    expect(ui.confirms).toHaveLength(0);

    // Recovered: no note any more, nothing re-run again, and the status has no interruption line.
    const usages = await callTool(g, "kota_usages", { symbol: "add" });
    expect(usages.text).not.toMatch(/interrupted/);
    expect(indexCalls()).toBe(2);
    await g.pipeline.commands.get("kota status")!.command.handler("", { ui } as never);
    expect(ui.notes.at(-1)).not.toMatch(/Last index: interrupted/);
  });

  it("a second crash during the automatic re-run stops re-runs: every later call says so, and /kota status shows the way", async () => {
    const { g, ui, pidFile } = await setup();
    const index = callTool(g, "kota_index", {});
    const first = await killDuringIndex(pidFile, 1);
    await index;

    const deps = callTool(g, "kota_deps", { file_path: "src/utils/math.ts" });
    await new Promise((r) => setTimeout(r, 0));
    const deadline = Date.now() + 15_000;
    while (Number(readFileSync(pidFile, "utf8")) === first && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await killDuringIndex(pidFile, 2);
    const failed = await deps;
    expect(failed.obs.status).toBe("ERROR");

    const later = await callTool(g, "kota_usages", { symbol: "add" });
    expect(later.obs.status).toBe("ERROR");
    expect(later.text).toMatch(/index is incomplete: KotaDB crashed during indexing 2 times this session/);
    expect(later.text).toMatch(/not re-run automatically again.*\/kota status.*\/kota index/s);
    expect(later.text).not.toMatch(/not indexed yet/);
    expect(indexCalls()).toBe(2);

    await g.pipeline.commands.get("kota status")!.command.handler("", { ui } as never);
    expect(ui.notes.at(-1)).toMatch(
      /Last index: interrupted by a KotaDB crash at .* \(2 crash\(es\) during indexing this session.*not re-run automatically again; run \/kota index to retry/,
    );

    // The user retries by hand: it asks (confirmIndex is off here), indexes, and the interruption is gone.
    const retried = await callTool(g, "kota_index", { force: true });
    expect(retried.obs.status).toBe("SUCCESS");
    expect((await callTool(g, "kota_usages", { symbol: "add" })).obs.status).toBe("SUCCESS");
  });
});
