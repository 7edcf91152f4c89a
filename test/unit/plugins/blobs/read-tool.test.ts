import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset, type Clock } from "pi-governor";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { blobsGovernor, callAndShape, recordingUi, textOf } from "../../../helpers/blobs-governor.ts";

describe("blob_read and the blob commands", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-blobread-"));
    dir = join(root, "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const lines = Array.from({ length: 3_000 }, (_, i) => `entry ${i + 1} ${i % 7 === 0 ? "needle" : "hay"}`);
  const text = lines.join("\n");

  it("pages through a stored output by lines until it is complete, each answer bounded", async () => {
    const gov = await blobsGovernor({ blobs: { dir, readMaxBytes: 4_096 } }, { text });
    const id = (await callAndShape(gov, "emit")).details!.blobId as string;
    const got: string[] = [];
    let offset: number | undefined = 1;
    let calls = 0;
    while (offset !== undefined && calls++ < 1_000) {
      const obs = await gov.pipeline.callTool("blob_read", { blobId: id, offset, limit: 500 });
      expect(obs.status).toBe("SUCCESS");
      const out = textOf(obs.content);
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(4_096 + 300);
      const body = out
        .split("\n")
        .slice(1)
        .filter((l) => !l.startsWith("[next: ") && l !== "[end of blob]");
      got.push(...body);
      offset = (obs.details.nextLine as number | null) ?? undefined;
      if (offset !== undefined) expect(out).toContain(`[next: blob_read({"blobId":"${id.slice(0, 12)}","offset":${offset}})]`);
    }
    expect(got.join("\n")).toBe(text);
  });

  it("reads by bytes and greps, telling where to continue", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text });
    const id = (await callAndShape(gov, "emit")).details!.blobId as string;
    const bytes = await gov.pipeline.callTool("blob_read", { blobId: id, unit: "bytes", offset: 0, limit: 20 });
    expect(textOf(bytes.content)).toMatch(/^\[blob [0-9a-f]{12}…: [\d,]+ bytes\] bytes 0-20 of \d+\nentry 1 needle\nentry\n\[next: /);
    const grep = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "NEEDLE", limit: 3 });
    const out = textOf(grep.content);
    expect(out).toContain("3 line(s) matching");
    expect(out).toContain("\n1: entry 1 needle\n8: entry 8 needle\n15: entry 15 needle\n");
    expect(out).toContain(`[more matches: blob_read({"blobId":"${id.slice(0, 12)}","grep":"NEEDLE","offset":22})]`);
    // An invalid regular expression is searched as plain text.
    const literal = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "entry 2 (" });
    expect(literal.status).toBe("SUCCESS");
  });

  it("refuses limit 0, a negative offset or a fraction with what to pass instead (a page must move forward)", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text });
    const id = (await callAndShape(gov, "emit")).details!.blobId as string;
    for (const [args, why] of [
      [{ limit: 0 }, "limit must be a whole number of at least 1, got 0"],
      [{ unit: "bytes", offset: 10, limit: 0 }, "limit must be a whole number of at least 1, got 0"],
      [{ grep: "needle", limit: 0 }, "limit must be a whole number of at least 1, got 0"],
      [{ offset: -5 }, "offset must be a whole number of at least 0, got -5"],
      [{ limit: 2.5 }, "limit must be a whole number of at least 1, got 2.5"],
    ] as const) {
      const obs = await gov.pipeline.callTool("blob_read", { blobId: id, ...args });
      expect(obs.status).toBe("ERROR");
      expect(textOf(obs.content)).toContain(why);
      expect(textOf(obs.content)).not.toContain("[next: blob_read(");
    }
    const unit = await gov.pipeline.callTool("blob_read", { blobId: id, unit: "u".repeat(10_000) });
    expect(textOf(unit.content).length).toBeLessThan(1_000);
  });

  it("reads a blob by the 12-digit prefix placeholders name, and refuses a crafted prefix as invalid input", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text });
    const id = (await callAndShape(gov, "emit")).details!.blobId as string;
    const page = await gov.pipeline.callTool("blob_read", { blobId: id.slice(0, 12), limit: 2 });
    expect(page.status).toBe("SUCCESS");
    expect(textOf(page.content)).toContain("\nentry 1 needle\nentry 2 hay\n[next: ");
    expect(page.meta.blob?.id).toBe(id);
    for (const crafted of [id.slice(0, 7), `${id.slice(0, 12)}/..`, "z".repeat(12), "a".repeat(100_000)]) {
      const bad = await gov.pipeline.callTool("blob_read", { blobId: crafted });
      expect(bad.status).toBe("ERROR");
      expect(textOf(bad.content)).toMatch(/invalid blob id/);
      expect(textOf(bad.content).length).toBeLessThan(600);
    }
  });

  it("answers a bad or unknown id with an error result that says what to do", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text });
    const bad = await gov.pipeline.callTool("blob_read", { blobId: "../../etc/passwd" });
    expect(bad.status).toBe("ERROR");
    expect(textOf(bad.content)).toMatch(/invalid blob id .*64 hex characters.*first 8 or more.*exactly as the placeholder, the \[blob …\] marker/);
    const gone = await gov.pipeline.callTool("blob_read", { blobId: "a".repeat(64) });
    expect(gone.status).toBe("ERROR");
    expect(textOf(gone.content)).toMatch(/no blob aaaaaaaaaaaa…/);
  });

  it("lists recent blobs with size and location, and purges only after confirmation", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text }, { commandRoot: "kota" });
    const stored = await callAndShape(gov, "emit");
    const commands = gov.pipeline.commands;
    expect([...commands.keys()]).toEqual(expect.arrayContaining(["kota blobs", "kota purge-blobs"]));

    const ui = recordingUi(true, false);
    await commands.get("kota blobs")!.command.handler("", { ui, cwd: "/", sessionId: "s" });
    expect(ui.notes[0]!.message).toContain(`Blob cache: ${dir}`);
    expect(ui.notes[0]!.message).toContain(`1 blob(s), ${Buffer.byteLength(text).toLocaleString("en-US")} bytes`);
    expect(ui.notes[0]!.message).toContain(stored.details!.blobPath as string);

    await commands.get("kota purge-blobs")!.command.handler("", { ui, cwd: "/", sessionId: "s" });
    expect(ui.confirms).toEqual(["Purge blob cache?"]);
    expect(readdirSync(dir)).toHaveLength(1);

    const headless = recordingUi(false);
    await commands.get("kota purge-blobs")!.command.handler("", { ui: headless, cwd: "/", sessionId: "s" });
    expect(headless.confirms).toEqual([]);
    expect(headless.notes[0]!.message).toMatch(/needs a confirmation .*interactive mode/);
    expect(readdirSync(dir)).toHaveLength(1);

    const yes = recordingUi(true, true);
    await commands.get("kota purge-blobs")!.command.handler("", { ui: yes, cwd: "/", sessionId: "s" });
    expect(yes.notes.at(-1)!.message).toMatch(/Purged 1 blob\(s\)/);
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it("enforces retention once the session named its blobs and again on its timer, keeping blobs this session points to", async () => {
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const clock: Clock = { now: () => 0, setTimeout: (fn, ms) => timers.push({ fn, ms }), clearTimeout: () => {} };
    const gov = await createGovernor({
      preset: definePreset({ name: "p", description: "", plugins: () => [blobs()] }),
      cwd: "/",
      agentDir: "/nonexistent",
      env: {},
      clock,
      layers: [{ kind: "global", source: "t", data: { blobs: { dir, maxAgeDays: 1, sweepIntervalMinutes: 5 } } }],
    });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir, { recursive: true });
    const old = new Date(Date.now() - 3 * 86_400_000);
    const oldBlob = join(dir, `${"1".repeat(64)}.txt`);
    writeFileSync(oldBlob, "old");
    utimesSync(oldBlob, old, old);
    // A resumed session names an old blob in its first message list: the first sweep waits for it.
    const resumedEarly = join(dir, `${"5".repeat(64)}.txt`);
    writeFileSync(resumedEarly, "named by the resumed session");
    utimesSync(resumedEarly, old, old);
    await gov.pipeline.hooks.sessionStart.run({ sessionId: "s", cwd: "/", reason: "resume" });
    expect(readdirSync(dir).sort()).toEqual([`${"1".repeat(64)}.txt`, `${"5".repeat(64)}.txt`]);
    await gov.pipeline.hooks.context.run(
      [{ role: "toolResult", toolCallId: "y", toolName: "read", content: [], isError: false, details: { truncated: true, blobId: "5".repeat(64) } }],
      { sessionId: "s" },
    );
    // The sweep runs in the background: wait (bounded) for its result.
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([`${"5".repeat(64)}.txt`]), { timeout: 5_000 });
    rmSync(resumedEarly);
    expect(timers.map((t) => t.ms)).toEqual([300_000]);

    // A blob this session read back is kept even when it is old.
    const kept = join(dir, `${"2".repeat(64)}.txt`);
    const other = join(dir, `${"3".repeat(64)}.txt`);
    writeFileSync(kept, "kept");
    writeFileSync(other, "other");
    expect((await gov.pipeline.callTool("blob_read", { blobId: "2".repeat(64) })).status).toBe("SUCCESS");
    utimesSync(kept, old, old);
    utimesSync(other, old, old);
    timers[0]!.fn();
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([`${"2".repeat(64)}.txt`]), { timeout: 5_000 });
    expect(timers).toHaveLength(2);

    // A resumed session's messages name blobs an earlier process wrote: those are kept too.
    const resumed = join(dir, `${"4".repeat(64)}.txt`);
    writeFileSync(resumed, "from before");
    utimesSync(resumed, old, old);
    await gov.pipeline.hooks.context.run(
      [{ role: "toolResult", toolCallId: "x", toolName: "kota_search", content: [], isError: false, details: { truncated: true, blobId: "4".repeat(64) } }],
      { sessionId: "s" },
    );
    timers[1]!.fn();
    await new Promise((r) => setTimeout(r, 50));
    await vi.waitFor(() => expect(readdirSync(dir).sort()).toEqual([`${"2".repeat(64)}.txt`, `${"4".repeat(64)}.txt`]), { timeout: 5_000 });
  });
});
