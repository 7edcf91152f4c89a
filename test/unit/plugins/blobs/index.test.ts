import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BLOB_MARKER_PATTERN } from "../../../../plugins/blobs/index.ts";
import { blobsGovernor, callAndShape, recordingUi, shape, textOf } from "../../../helpers/blobs-governor.ts";

describe("blobs plugin: cutting large results", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-blobplug-"));
    dir = join(root, "blobs");
  });
  const extraFiles: string[] = [];
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    for (const f of extraFiles.splice(0)) rmSync(f, { force: true });
  });

  const bigText = Array.from({ length: 5_000 }, (_, i) => `row ${i + 1}: ${"data ".repeat(8)}ünïcode`).join("\n");

  it("stores the full original and returns a bounded excerpt that starts with the blob marker", async () => {
    const gov = await blobsGovernor({ blobs: { dir, excerptBytes: 2_000 } }, { text: bigText });
    expect(gov.problems()).toEqual([]);
    const out = await callAndShape(gov, "emit");
    const text = textOf(out.content);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2_000);
    expect(text.startsWith("[blob: ")).toBe(true);
    const shortId = BLOB_MARKER_PATTERN.exec(text)![1]!;
    expect(shortId).toHaveLength(12);
    const id = out.details!.blobId as string;
    expect(id.startsWith(shortId)).toBe(true);
    expect(out.details).toMatchObject({ truncated: true, originalBytes: Buffer.byteLength(bigText), excerptBytes: Buffer.byteLength(text) });
    expect(out.details!.blobPath).toBe(join(dir, `${id}.txt`));
    expect(readFileSync(out.details!.blobPath as string, "utf8")).toBe(bigText);
    // Head and tail, cut on lines, and the omitted range named.
    expect(text).toContain("\nrow 1: ");
    expect(text).toMatch(/row 5000: data .*ünïcode$/);
    expect(text).toMatch(/… \[lines [\d,]+-[\d,]+ omitted: [\d,]+ bytes\] …/);
    for (const line of text.split("\n").slice(1, -1)) {
      if (line.startsWith("row ")) expect(line).toMatch(/^row \d+: (data ){8}ünïcode$/);
    }
    // The marker survives pi's compaction (about 2,000 characters kept).
    expect(text.slice(0, 2_000)).toMatch(BLOB_MARKER_PATTERN);
  });

  it("names the line where the omitted middle starts so blob_read can resume there", async () => {
    const gov = await blobsGovernor({ blobs: { dir, excerptBytes: 1_000 } }, { text: bigText });
    const out = await callAndShape(gov, "emit");
    const text = textOf(out.content);
    const m = /\[lines ([\d,]+)-([\d,]+) omitted/.exec(text)!;
    const first = Number(m[1]!.replace(/,/g, ""));
    const last = Number(m[2]!.replace(/,/g, ""));
    const shownHead = text
      .split("\n")
      .filter((l) => l.startsWith("row "))
      .map((l) => Number(/^row (\d+):/.exec(l)![1]));
    expect(shownHead).toContain(first - 1);
    expect(shownHead).not.toContain(first);
    expect(shownHead).toContain(last + 1);
  });

  it("leaves small results alone", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text: "small answer" });
    const out = await callAndShape(gov, "emit");
    expect(textOf(out.content)).toBe("small answer");
    expect(out.details?.truncated).toBeUndefined();
  });

  it("says which keys and array lengths a JSON answer had", async () => {
    const answer = JSON.stringify(
      {
        query: "config",
        results: { code: Array.from({ length: 300 }, (_, i) => ({ path: `src/f${i}.ts`, matches: [{ line: i, content: "x".repeat(80) }] })) },
        counts: { total: 300 },
      },
      null,
      2,
    );
    const gov = await blobsGovernor({ blobs: { dir } }, { text: answer });
    const out = await callAndShape(gov, "emit");
    const text = textOf(out.content);
    expect(text.split("\n")[1]).toBe("JSON outline (full answer): {query, results: {code: [300 × {path, matches: [1 × {line, content}]}]}, counts: {total}}");
    expect((out.details!.blobPath as string).endsWith(".json")).toBe(true);
    expect(readFileSync(out.details!.blobPath as string, "utf8")).toBe(answer);
  });

  it("keeps details small so pi never persists a second raw copy", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text: bigText, details: { structuredContent: { rows: bigText }, source: "test" } });
    const out = await callAndShape(gov, "emit");
    expect(JSON.stringify(out.details).length).toBeLessThan(2_048);
    expect(out.details).toMatchObject({ source: "test", droppedDetails: ["structuredContent"] });
    expect(JSON.stringify(out.details)).not.toContain("data data");
  });

  it("with an unwritable cache dir the call still succeeds, cut without a pointer, and warns once", async () => {
    const file = join(root, "a-file");
    writeFileSync(file, "not a directory");
    const gov = await blobsGovernor({ blobs: { dir: join(file, "blobs") } }, { text: bigText });
    const ui = recordingUi();
    gov.attachSession("s", ui);
    const first = await callAndShape(gov, "emit");
    const second = await callAndShape(gov, "emit");
    for (const out of [first, second]) {
      expect(out.isError).toBe(false);
      const text = textOf(out.content);
      expect(text).toMatch(/^\[output cut from [\d,]+ bytes; the full output could not be stored \(GOV_BLOB_DIR\)/);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(6_144);
      expect(out.details).toMatchObject({ truncated: true, blobError: "GOV_BLOB_DIR" });
      expect(out.details!.blobId).toBeUndefined();
    }
    expect(ui.notes.filter((n) => n.level === "warning")).toHaveLength(1);
    expect(ui.notes[0]!.message).toMatch(/cannot write the blob cache .*ENOTDIR.*blobs\.dir/);
  });

  it("never cuts a rehydration tool's answer, nor pi's read of a file in the cache", async () => {
    const gov = await blobsGovernor({ blobs: { dir, builtinTools: ["read", "bash"], readMaxBytes: 60_000 } }, { text: bigText });
    const out = await callAndShape(gov, "emit");
    const id = out.details!.blobId as string;
    const page = await gov.pipeline.callTool("blob_read", { blobId: id, limit: 5_000 });
    const shaped = await shape(gov, {
      toolName: "blob_read",
      toolCallId: "r",
      input: { blobId: id },
      content: page.content,
      details: page.details,
      isError: false,
    });
    expect(shaped.details?.truncated).toBeUndefined();
    expect(textOf(shaped.content).length).toBeGreaterThan(16_384);

    const readOfBlob = await shape(gov, {
      toolName: "read",
      toolCallId: "r2",
      input: { path: out.details!.blobPath as string },
      content: [{ type: "text", text: bigText }],
      details: undefined,
      isError: false,
    });
    expect(readOfBlob.details?.truncated).toBeUndefined();
    const readOfOther = await shape(gov, {
      toolName: "read",
      toolCallId: "r3",
      input: { path: join(root, "other.txt") },
      content: [{ type: "text", text: bigText }],
      details: undefined,
      isError: false,
    });
    expect(readOfOther.details?.truncated).toBe(true);
  });

  it("for pi's bash, stores the whole output pi wrote to its full-output file, not pi's cut copy", async () => {
    const gov = await blobsGovernor({ blobs: { dir, builtinTools: ["bash"] } }, { text: "" });
    // pi writes these files directly into the OS temp dir; only there are they read.
    const fullPath = join(tmpdir(), `pi-bash-${process.pid}-${Date.now()}.log`);
    extraFiles.push(fullPath);
    const full = `${"early line\n".repeat(20_000)}${bigText}`;
    writeFileSync(fullPath, full);
    const piCut = bigText.slice(-40_000); // pi keeps only the tail
    const out = await shape(gov, {
      toolName: "bash",
      toolCallId: "b",
      input: { command: "make" },
      content: [{ type: "text", text: piCut }],
      details: { fullOutputPath: fullPath },
      isError: false,
    });
    expect(out.details).toMatchObject({ truncated: true, originalBytes: Buffer.byteLength(full) });
    expect(readFileSync(out.details!.blobPath as string, "utf8")).toBe(full);
    expect(textOf(out.content)).toContain(`${Buffer.byteLength(full).toLocaleString("en-US")} bytes stored`);
  });

  it("leaves pi's built-in tools alone unless builtinTools lists them", async () => {
    const gov = await blobsGovernor({ blobs: { dir } }, { text: "" });
    const bash = await shape(gov, {
      toolName: "bash",
      toolCallId: "b",
      input: { command: "cat big" },
      content: [{ type: "text", text: bigText }],
      details: undefined,
      isError: false,
    });
    expect(textOf(bash.content)).toBe(bigText);
  });

  it("uses a budget plugin's per-tool byte budget as the threshold", async () => {
    const text = "y".repeat(20_000);
    const gov = await blobsGovernor({ budget: { maxBytes: 30_000 } }, { text }, { withBudget: true });
    const out = await callAndShape(gov, "emit");
    expect(textOf(out.content)).toBe(text); // 20 KB: over blobs' 16 KB default, within the 30 KB budget
    const tight = await blobsGovernor({ budget: { maxBytes: 10_000 }, blobs: { dir } }, { text }, { withBudget: true });
    expect((await callAndShape(tight, "emit")).details?.truncated).toBe(true);
  });

  it("accepts the documented config keys", async () => {
    const gov = await blobsGovernor({ blobs: { enabled: true, dir, maxBytes: 262_144_000, maxAgeDays: 14 } }, { text: "" });
    expect(gov.problems()).toEqual([]);
    const off = await blobsGovernor({ blobs: { enabled: false } }, { text: bigText });
    expect(textOf((await callAndShape(off, "emit")).content)).toBe(bigText);
  });

  it("a project config may not move the cache directory", async () => {
    const { createGovernor } = await import("pi-governor/host");
    const { definePreset } = await import("pi-governor");
    const { blobs } = await import("../../../../plugins/blobs/index.ts");
    const gov = await createGovernor({
      preset: definePreset({ name: "p", description: "", plugins: () => [blobs()] }),
      cwd: "/",
      agentDir: "/nonexistent",
      env: {},
      layers: [{ kind: "project", source: "/repo/.pi/pi-governor.json", data: { blobs: { dir: "/repo/leak" } } }],
    });
    expect(gov.problems().join("\n")).toMatch(/blobs\.dir/);
  });
});
