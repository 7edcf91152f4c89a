import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { FOLD_TOOL, foldCalls } from "../../../../plugins/fold/index.ts";
import { PIN_KIND } from "../../../../plugins/prune/records.ts";
import { harness, turn, turns, user } from "../../../helpers/prune-fold.ts";

const SUMMARY = "Read f1-f4: they export the config loader and its tests.";

describe("context_fold: the tool", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("is registered by the fold plugin when it is on, and not when fold.enabled is false or the preset has no fold plugin", async () => {
    expect((await harness()).toolNames()).toContain(FOLD_TOOL);
    expect((await harness({}, { fold: { enabled: false } })).toolNames()).not.toContain(FOLD_TOOL);
    expect((await harness({}, { withoutFold: true })).toolNames()).not.toContain(FOLD_TOOL);
  });

  it("folds whole finished turns, stores the originals byte-exact in a blob and says how to get them back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pigov-fold-"));
    dirs.push(dir);
    const h = await harness({}, { blobsDir: join(dir, "blobs") });
    const history = [...turns(6), user(7)];
    await h.context(history);
    const r = await h.fold("f7", { from: "c2", to: "c4", summary: SUMMARY });
    expect(r.ok).toBe(true);
    expect(r.text).toMatch(/^Folded turns 2-4 \(12 messages, [\d,]+ chars\) into your summary\. This applies from your next request/);
    expect(r.text).toContain("/governor unfold f7");
    const blobId = r.details.blobId as string;
    expect(blobId).toMatch(/^[0-9a-f]{64}$/);
    expect(r.text).toContain(`blob_read({"blobId":"${blobId.slice(0, 12)}"})`);
    expect(r.details.fold).toMatchObject({ from: "c2", to: "c4", turns: [2, 4], messages: 12 });
    const file = readdirSync(join(dir, "blobs")).find((f) => f.startsWith(blobId))!;
    const stored = readFileSync(join(dir, "blobs", file), "utf8")
      .trimEnd()
      .split("\n");
    expect(stored).toEqual(history.slice(4, 16).map((m) => JSON.stringify(m)));
  });

  it("works without the blobs plugin: the originals stay in the session", async () => {
    const h = await harness();
    await h.context([...turns(4), user(5)]);
    const r = await h.fold("f5", { from: "c1", to: "c1", summary: SUMMARY });
    expect(r.ok).toBe(true);
    expect(r.text).toContain("Folded turn 1 (4 messages");
    expect(r.text).toContain("they stay in the session");
    expect(r.details.blobId).toBeUndefined();
  });

  it("a pair with a successful result is a fold; an error result, a missing result or bad arguments are not", async () => {
    const h = await harness();
    await h.context([...turns(4), user(5)]);
    const good = await h.fold("f5", { from: "c1", to: "c2", summary: SUMMARY });
    const bad = await h.fold("g5", { from: "c3", to: "c1", summary: SUMMARY });
    expect(bad.ok).toBe(false);
    const pending: AgentMessageLike = {
      role: "assistant",
      content: [{ type: "toolCall", id: "h5", name: FOLD_TOOL, arguments: { from: "c1", to: "c2", summary: SUMMARY } }],
    };
    const badArgs: AgentMessageLike[] = [
      { role: "assistant", content: [{ type: "toolCall", id: "k5", name: FOLD_TOOL, arguments: { from: 1, to: "c2", summary: SUMMARY } }] },
      { role: "toolResult", toolCallId: "k5", toolName: FOLD_TOOL, content: [{ type: "text", text: "ok" }], isError: false },
    ];
    const list = [...turns(4), user(5), ...good.messages, ...bad.messages, pending, ...badArgs];
    expect(foldCalls(list).map((f) => f.id)).toEqual(["f5"]);
    // A governed result that failed is not a fold even if a stage left isError false.
    const failed = { ...bad.messages[1]!, isError: false };
    expect(foldCalls([...turns(4), user(5), bad.messages[0]!, failed])).toEqual([]);
  });

  describe("a range that cannot be folded is refused with what is wrong and how to fix it", () => {
    const refused = async (history: AgentMessageLike[], args: Record<string, unknown>, options: Record<string, unknown> = {}, pins: string[] = []) => {
      const h = await harness(options);
      for (const id of pins) h.store.append(PIN_KIND, { toolCallId: id, toolName: "read" });
      await h.context(history);
      const r = await h.fold("f9", { summary: SUMMARY, ...args });
      expect(r.ok).toBe(false);
      expect(r.text).toMatch(/^context_fold failed \(invalid_input\): /);
      return r.text;
    };

    it("an unknown id names the foldable turns", async () => {
      const text = await refused([...turns(6), user(7)], { from: "nope", to: "c3" });
      expect(text).toContain('from "nope" is not the id of a tool call');
      expect(text).toContain('Foldable now: turns 1-6 (from "c1" to "c6")');
    });

    it("a 10,000-character id is echoed cut to 80 characters, with its length", async () => {
      const id = "x".repeat(10_000);
      const text = await refused([...turns(6), user(7)], { from: id, to: "c3" });
      expect(text).toContain(`from "${"x".repeat(80)}…" (10,000 characters) is not the id of a tool call`);
      expect(text.length).toBeLessThan(1_000);
    });

    it("from after to", async () => {
      expect(await refused([...turns(6), user(7)], { from: "c4", to: "c2" })).toContain('from "c4" comes after to "c2". Swap from and to');
    });

    it("the current turn", async () => {
      const current = turn(7).slice(0, 3);
      const text = await refused([...turns(6), ...current], { from: "c5", to: "c7" });
      expect(text).toContain("turns 5-7 cannot be folded: turn 7 is not finished");
      expect(text).toContain('Fold a part that can be folded: turns 5-6 (from "c5" to "c6")');
    });

    it("a pinned result inside (meta.pinned) names the call and the sub-ranges that are allowed", async () => {
      const history = [...turns(2), ...turn(3, { details: { pinned: true } }), ...turns(3, 4), user(7)];
      const text = await refused(history, { from: "c1", to: "c5" });
      expect(text).toContain("turns 1-5 cannot be folded: turn 3 holds the pinned result of c3");
      expect(text).toContain('turns 1-2 (from "c1" to "c2"), turns 4-5 (from "c4" to "c5")');
    });

    it("a user pin inside", async () => {
      expect(await refused([...turns(6), user(7)], { from: "c1", to: "c3" }, {}, ["c2"])).toContain("turn 2 holds the pinned result of c2");
    });

    it("a call on a protected path inside", async () => {
      const history = [...turn(1), ...turn(2, { args: { path: "deps/yarn.lock" } }), ...turns(4, 3), user(7)];
      const text = await refused(history, { from: "c1", to: "c3" }, { protectedFilePatterns: ["*.lock"] });
      expect(text).toContain("turn 2 has a call on the protected path deps/yarn.lock (c2)");
    });

    it("an incomplete turn inside", async () => {
      const broken = turn(3).filter((m) => m.role !== "toolResult");
      const text = await refused([...turns(2), ...broken, ...turns(3, 4), user(7)], { from: "c2", to: "c4" });
      expect(text).toContain("turn 3 has a tool call without its result");
    });

    it("an overlap with an active fold", async () => {
      const h = await harness();
      const history = [...turns(6), user(7)];
      await h.context(history);
      const first = await h.fold("f7", { from: "c1", to: "c3", summary: SUMMARY });
      expect(first.ok).toBe(true);
      await h.context([...history, ...first.messages]);
      const r = await h.fold("g7", { from: "c3", to: "c5", summary: SUMMARY });
      expect(r.ok).toBe(false);
      expect(r.text).toContain("turn 3 is already folded by f7");
      expect(r.text).toContain('turns 4-5 (from "c4" to "c5")');
    });

    it("an overlap with a fold accepted in the same assistant message (no context in between)", async () => {
      const h = await harness();
      await h.context([...turns(6), user(7)]);
      expect((await h.fold("f7", { from: "c1", to: "c3", summary: SUMMARY })).ok).toBe(true);
      const r = await h.fold("g7", { from: "c2", to: "c4", summary: SUMMARY });
      expect(r.text).toContain("turn 2 is already folded by f7");
      expect((await h.fold("k7", { from: "c4", to: "c5", summary: SUMMARY })).ok).toBe(true);
    });

    it("a summary out of bounds", async () => {
      expect(await refused([...turns(6), user(7)], { from: "c1", to: "c2", summary: "short" })).toContain("the summary has 5 chars; it must have 20-8,000");
    });
  });
});
