import { describe, expect, it } from "vitest";
import { isPlaceholder } from "../../../../plugins/prune/placeholder.ts";
import { kotaFormatCall as formatCall, kotaPlaceholderText as placeholderText } from "../../../../presets/kota/prune-policy.ts";

describe("placeholders", () => {
  it("render a kota_search placeholder: tool, key arguments, and how to re-run narrower", () => {
    const text = placeholderText({ toolName: "kota_search", args: { query: "auth context", scope: ["code"], output: "snippet", limit: 20 }, chars: 5000, images: 0, isError: false, blobId: undefined });
    expect(text).toBe('(Pruned) kota_search(query="auth context", scope=["code"], output="snippet", limit=20) [5,000 chars]. Re-run with narrower query/glob to rehydrate.');
  });

  it("point at blob_read with the exact blob id when the blobs plugin stored the output", () => {
    const text = placeholderText({ toolName: "kota_deps", args: { file_path: "src/a.ts" }, chars: 9000, images: 0, isError: false, blobId: "abc123" });
    expect(text).toContain('blob_read({"blobId":"abc123"})');
    expect(placeholderText({ toolName: "kota_deps", args: {}, chars: 9000, images: 0, isError: false, blobId: "abc123", style: "short" })).toContain('blob_read({"blobId":"abc123"})');
  });

  it("say how to get read and bash output back, and count images and errors", () => {
    expect(placeholderText({ toolName: "read", args: { path: "src/x.ts", offset: 10, limit: 50 }, chars: 3000, images: 2, isError: false, blobId: undefined })).toBe(
      '(Pruned) read(path="src/x.ts", offset=10, limit=50) [3,000 chars, 2 images]. Re-run read on the same path (use offset/limit for just the lines you need) to rehydrate.',
    );
    expect(placeholderText({ toolName: "bash", args: { command: "npm test" }, chars: 3000, images: 0, isError: true, blobId: undefined })).toContain("[3,000 chars, error]. Re-run the command, narrowed");
    expect(placeholderText({ toolName: "acme_tool", args: {}, chars: 3000, images: 0, isError: false, blobId: undefined })).toContain("Re-run acme_tool with narrower arguments");
  });

  it("cut long arguments and show preferred keys first, deterministically", () => {
    const call = formatCall("bash", { timeout: 5, command: "x".repeat(500) });
    expect(call.startsWith('bash(command="xxx')).toBe(true);
    expect(call).toContain("…");
    expect(call.endsWith("timeout=5)")).toBe(true);
    expect(formatCall("bash", { timeout: 5, command: "x".repeat(500) })).toBe(call);
  });

  it("are recognised as placeholders", () => {
    expect(isPlaceholder(placeholderText({ toolName: "read", args: {}, chars: 10, images: 0, isError: false, blobId: undefined }))).toBe(true);
    expect(isPlaceholder("Pruned")).toBe(false);
  });
});
