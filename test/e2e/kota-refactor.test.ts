/**
 * Seed 002 acceptance scenario 1, in a real pi session with the default preset over the KotaDB
 * stand-in: "what breaks if I change X.ts?" stays compact, the impact summary is pinned and survives
 * pruning, and no large file dump persists in what the model is sent.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { assertNoLiveChildren, bigSource, type KotaE2e, requestChars, startKotaSession, toolResultsIn } from "../helpers/kota-e2e.ts";

let e2e: KotaE2e | undefined;
afterEach(async () => {
  await e2e?.dispose();
  e2e = undefined;
  assertNoLiveChildren();
});

const call = (name: string, args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

describe("kota e2e: what breaks if I change src/utils/math.ts?", () => {
  it("stays compact, pins the impact summary through pruning, and drops old file dumps", async () => {
    e2e = await startKotaSession({
      files: {
        "src/generated/big-a.ts": bigSource("bigA", 30),
        "src/generated/big-b.ts": bigSource("bigB", 30),
        "src/generated/big-c.ts": bigSource("bigC", 30),
      },
      // autoContext on: the prompt names a file, so a briefing goes in front (and asks to index first).
      // cacheAware off: the cache-aware rule waits until carrying old output has cost more than one
      // prompt-cache rewrite, which a 5-turn session never reaches; the 30-turn test runs the defaults.
      config: { kota: { autoContext: "onPaths" }, prune: { cacheAware: false } },
      responses: [
        call("kota_impact", { change_type: "refactor", description: "change the signature of add", files_to_modify: ["src/utils/math.ts"] }),
        call("kota_deps", { file_path: "src/utils/math.ts", direction: "dependents", depth: 2 }),
        call("kota_usages", { symbol: "add" }),
        fauxAssistantMessage([fauxText("Changing add affects handlers, index and format; run tests/math.test.ts.")]),
        call("read", { path: "src/generated/big-a.ts" }),
        fauxAssistantMessage([fauxText("read a")]),
        call("read", { path: "src/generated/big-b.ts" }),
        fauxAssistantMessage([fauxText("read b")]),
        call("read", { path: "src/generated/big-c.ts" }),
        fauxAssistantMessage([fauxText("read c")]),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    const { pi } = e2e;
    await pi.session.prompt("what breaks if I change src/utils/math.ts?");

    // The briefing was injected in front of the first request, after the user confirmed indexing.
    expect(pi.ui.confirms).toHaveLength(1);
    const first = JSON.stringify(pi.contexts[0]);
    expect(first).toMatch(/\[autoContext\] KotaDB briefing for src\/utils\/math.ts \(4 dependents\)/);

    // Every kota answer that reached the session is compact; the impact answer leads with risk.
    const stored = pi.session.messages.filter((m) => m.role === "toolResult") as unknown as Array<{
      toolName: string;
      content: Array<{ text: string }>;
      details: { pinned?: boolean };
    }>;
    const kotaResults = stored.filter((m) => m.toolName.startsWith("kota_"));
    expect(kotaResults.map((m) => m.toolName)).toEqual(["kota_impact", "kota_deps", "kota_usages"]);
    for (const m of kotaResults) expect(Buffer.byteLength(m.content.map((b) => b.text).join("\n"))).toBeLessThan(5_000);
    const impact = kotaResults[0]!;
    expect(impact.details.pinned).toBe(true);
    expect(impact.content.map((b) => b.text).join("\n")).toMatch(
      /Risk: LOW\. Affected surface: 8 files \(1 changed, 7 to review\)\.\nRecommended tests to run \(2\): tests\/math.test.ts, src\/api\/handlers.test.ts/,
    );

    for (const file of ["a", "b", "c"]) await pi.session.prompt(`show me src/generated/big-${file}.ts`);
    await pi.session.prompt("summarise");

    const last = pi.contexts.at(-1)!;
    const results = toolResultsIn(last);
    // The impact summary survived pruning, byte for byte.
    const impactNow = results.find((r) => r.toolName === "kota_impact")!;
    expect(impactNow.text).toBe(impact.content.map((b) => b.text).join("\n"));
    // Old reads are placeholders with the way back; no result in the request is a large dump.
    const readA = results.find((r) => r.toolName === "read")!;
    // The way back names the blob by its first 12 hex digits; how to page it is in blob_read's description.
    expect(readA.text).toMatch(/^\(Pruned\) read\(path="src\/generated\/big-a.ts"\) \[[\d,]+ chars\] blob_read\(\{"blobId":"[0-9a-f]{12}"\}\)$/);
    expect(readA.text.length).toBeLessThanOrEqual(110);
    for (const r of results) expect(r.text.length).toBeLessThan(8_000);
    // What was read stays out of the prompt: the last request is far smaller than the reads.
    expect(requestChars(last)).toBeLessThan(3 * 30 * 1024);
  });
});

describe("kota e2e: status line and /kota commands in a real pi session", () => {
  it("shows kota: stopped before first use, running and indexed after, and /kota status | index | restart answer", async () => {
    e2e = await startKotaSession({ responses: [call("kota_index", {}), fauxAssistantMessage([fauxText("indexed")])] });
    const { pi } = e2e;
    expect(pi.ui.statuses.get("kota")).toMatch(/^kota: stopped · repo: kota-fixture-\w+ · indexed: no$/);
    await pi.session.prompt("index the repo");
    expect(pi.ui.confirms).toHaveLength(1);
    expect(pi.ui.statuses.get("kota")).toMatch(/^kota: running · repo: kota-fixture-\w+ · indexed: yes$/);

    await pi.session.prompt("/kota status");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(
      /^kota: running .*\nRepository root: .*\nIndex: 13 files, 14 symbols.*\nRepository id: .*\nIndexed at commit: [0-9a-f]{12}\nRecently indexed files/s,
    );
    await pi.session.prompt("/kota index");
    expect(pi.ui.confirms).toHaveLength(2);
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/^Indexed /);
    await pi.session.prompt("/kota restart");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/^KotaDB restarted\. kota: running .* indexed: yes$/);
    await pi.session.prompt("/kota");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/^kota: running/); // no subcommand: status
    await pi.session.prompt("/kota pruning");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/^Pruning: on for model faux\/faux-1\n {2}keep the last 2 turn/);
  });
});
