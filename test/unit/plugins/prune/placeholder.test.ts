import { describe, expect, it } from "vitest";
import { isPlaceholder, type PlaceholderInput, placeholderText as prunePlaceholder, relationPlaceholder } from "../../../../plugins/prune/placeholder.ts";
import { kotaPruneDefaults } from "../../../../presets/kota/index.ts";

/** A placeholder with the per-tool hints the kota preset configures (pi's read/bash included). */
const placeholderText = (input: PlaceholderInput) => prunePlaceholder({ ...input, hint: kotaPruneDefaults.perTool[input.toolName] });

describe("placeholders", () => {
  it("render a kota_search placeholder: tool, key arguments, and how to re-run narrower", () => {
    const text = placeholderText({
      toolName: "kota_search",
      args: { query: "auth context", scope: ["code"], output: "snippet", limit: 20 },
      chars: 5000,
      images: 0,
      isError: false,
      blobId: undefined,
    });
    expect(text).toBe(
      '(Pruned) kota_search(query="auth context", scope=["code"], output="snippet", limit=20) [5,000 chars] Re-run it with a narrower query/glob.',
    );
  });

  it("point at blob_read with the blob id's first 12 hex digits when the blobs plugin stored the output", () => {
    const id = "0123456789abcdef".repeat(4);
    const text = placeholderText({ toolName: "kota_deps", args: { file_path: "src/a.ts" }, chars: 9000, images: 0, isError: false, blobId: id });
    expect(text).toBe('(Pruned) kota_deps(file_path="src/a.ts") [9,000 chars] blob_read({"blobId":"0123456789ab"})');
    expect(placeholderText({ toolName: "kota_deps", args: {}, chars: 9000, images: 0, isError: false, blobId: id, style: "short" })).toBe(
      '(Pruned) kota_deps(); blob_read({"blobId":"0123456789ab"})',
    );
    // An id that is not a sha256 is shown as it is (blob_read then says what a blob id is).
    expect(placeholderText({ toolName: "kota_deps", args: {}, chars: 9000, images: 0, isError: false, blobId: "abc123" })).toContain(
      'blob_read({"blobId":"abc123"})',
    );
  });

  it("say how to get read and bash output back, and count images and errors", () => {
    expect(
      placeholderText({ toolName: "read", args: { path: "src/x.ts", offset: 10, limit: 50 }, chars: 3000, images: 2, isError: false, blobId: undefined }),
    ).toBe('(Pruned) read(path="src/x.ts", offset=10, limit=50) [3,000 chars, 2 images] Re-read it (offset/limit for part).');
    expect(placeholderText({ toolName: "bash", args: { command: "npm test" }, chars: 3000, images: 0, isError: true, blobId: undefined })).toContain(
      "[3,000 chars, error] Re-run it narrowed (grep/head/tail).",
    );
    expect(placeholderText({ toolName: "acme_tool", args: {}, chars: 3000, images: 0, isError: false, blobId: undefined })).toBe(
      "(Pruned) acme_tool() [3,000 chars] Re-run it narrower.",
    );
  });

  it("are recognised as placeholders", () => {
    expect(isPlaceholder(placeholderText({ toolName: "read", args: {}, chars: 10, images: 0, isError: false, blobId: undefined }))).toBe(true);
    expect(isPlaceholder("Pruned")).toBe(false);
  });
});

describe("relation placeholders", () => {
  const read = { toolName: "read", args: { path: "src/a.ts" }, chars: 9000, images: 0, isError: false, blobId: undefined };
  const duplicate = { kind: "duplicate", newerCallId: "toolu_x" } as const;
  const stale = { kind: "stale", path: "src/a.ts", changedByCallId: "toolu_y", changedByTool: "edit" } as const;

  it("name the newer call of a duplicate, and the blob when one holds the original", () => {
    expect(relationPlaceholder(read, duplicate)).toBe('(Pruned) read(path="src/a.ts") [9,000 chars] repeated as toolu_x (the current result)');
    expect(relationPlaceholder({ ...read, blobId: "ab12".repeat(16) }, duplicate)).toBe(
      '(Pruned) read(path="src/a.ts") [9,000 chars] repeated as toolu_x (the current result); blob_read({"blobId":"ab12ab12ab12"})',
    );
  });

  it("say a stale read's file changed and which call changed it; after bash, that it may have", () => {
    expect(relationPlaceholder(read, stale)).toBe('(Pruned) read(path="src/a.ts") [9,000 chars] stale: changed by edit toolu_y; read it again');
    expect(relationPlaceholder(read, { ...stale, changedByTool: "bash" })).toContain("stale: may have changed by bash toolu_y");
  });

  it("have a short style, and cut a long path or id", () => {
    expect(relationPlaceholder({ ...read, style: "short" }, duplicate)).toBe('(Pruned) read(path="src/a.ts"); repeated as toolu_x');
    expect(relationPlaceholder({ ...read, style: "short", blobId: "ab12" }, stale)).toBe(
      '(Pruned) read(path="src/a.ts"); stale: changed by edit toolu_y, read again; blob_read({"blobId":"ab12"})',
    );
    const long = relationPlaceholder({ ...read, args: { path: "p/".repeat(5000) } }, { ...stale, path: "p/".repeat(5000), changedByCallId: "i".repeat(5000) });
    expect(long.length).toBeLessThan(600);
    expect(long).toContain("…");
  });

  it("are placeholders, and the same input gives the same bytes", () => {
    expect(isPlaceholder(relationPlaceholder(read, duplicate))).toBe(true);
    expect(isPlaceholder(relationPlaceholder({ ...read, style: "short" }, stale))).toBe(true);
    expect(relationPlaceholder(read, stale)).toBe(relationPlaceholder({ ...read }, { ...stale }));
  });
});
