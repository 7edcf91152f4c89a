import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import {
  type ArgumentCutOptions,
  type ArgumentCutReason,
  argumentsBlobText,
  blobIdOf,
  cutToolCallArguments,
  isCutString,
  type ToolCallBlock,
} from "../../../../plugins/prune/arguments.ts";
import { protectedPathMatcher } from "../../../../lib/context/index.ts";
import { messageChars } from "../../../../plugins/prune/size.ts";

const options: ArgumentCutOptions = { maxArgChars: 2000, argExcerptChars: 240, isProtected: () => false, blobs: true };
const large = (): ArgumentCutReason => "large";
const failed = (): ArgumentCutReason => "failed";

/** 20 KB of distinct lines, so start and end excerpts are recognisable. */
const file = Array.from({ length: 500 }, (_, i) => `export const line${String(i).padStart(4, "0")} = ${i} * 2; // filler text`).join("\n");

function assistant(...content: unknown[]): AgentMessageLike {
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage: { input: 1 },
    stopReason: "toolUse",
    timestamp: 1,
  } as AgentMessageLike;
}
const thinking = { type: "thinking", thinking: "I will write the file.", thinkingSignature: "sig-AAAA==" };
const text = { type: "text", text: "Writing src/a.ts now." };
const call = (name: string, args: Record<string, unknown>, id = `call_${name}`) => ({ type: "toolCall", id, name, arguments: args, partialJson: "x" });
const blocks = (m: AgentMessageLike | undefined) => (m as { content: Array<Record<string, unknown>> }).content;
const argsOf = (m: AgentMessageLike | undefined, i: number) => blocks(m)[i]!.arguments as Record<string, unknown>;

describe("cutToolCallArguments", () => {
  it("cuts a 20 KB write to an excerpt plus a blob_read way back; the blob text is the full arguments", () => {
    const original = assistant(thinking, text, call("write", { path: "src/a.ts", content: file }));
    const cut = cutToolCallArguments(original, large, options);
    expect(cut.replacement).toBeDefined();
    const content = argsOf(cut.replacement, 2).content as string;
    const fullText = argumentsBlobText({ path: "src/a.ts", content: file });
    const id = blobIdOf(fullText);
    expect(content.length).toBeLessThan(240 + 200);
    expect(content.startsWith(file.slice(0, 120))).toBe(true);
    expect(content.endsWith(file.slice(-120))).toBe(true);
    expect(content).toContain(`…[pruned: ${file.length.toLocaleString("en-US")} chars; full arguments: blob_read({"blobId":"${id.slice(0, 12)}"})]…`);
    expect(argsOf(cut.replacement, 2).path).toBe("src/a.ts");
    expect(cut.blobs).toEqual([{ id, text: fullText }]);
    expect(JSON.parse(cut.blobs[0]!.text)).toEqual({ path: "src/a.ts", content: file });
    expect(cut.summaries).toEqual([
      `write(path="src/a.ts") arguments ${JSON.stringify({ path: "src/a.ts", content: file }).length.toLocaleString("en-US")} -> ${JSON.stringify(argsOf(cut.replacement, 2)).length.toLocaleString("en-US")} chars`,
    ]);
    expect(cut.savedChars).toBe(messageChars(original) - messageChars(cut.replacement!));
    expect(cut.savedChars).toBeGreaterThan(19_000);
  });

  it("keeps every other block as the same object and every field of the call and the message", () => {
    const original = assistant(thinking, text, call("write", { path: "src/a.ts", content: file }), call("read", { path: "b.ts" }, "call_2"));
    const before = JSON.stringify(original);
    const cut = cutToolCallArguments(original, large, options);
    const out = blocks(cut.replacement);
    expect(out[0]).toBe(original.content![0 as never]);
    expect(out[1]).toBe((original.content as unknown[])[1]);
    expect(out[3]).toBe((original.content as unknown[])[3]);
    expect(out[0]).toBe(thinking);
    expect(out[2]).toMatchObject({ type: "toolCall", id: "call_write", name: "write", partialJson: "x" });
    const { content: _c, ...rest } = cut.replacement as Record<string, unknown>;
    const { content: _o, ...restOriginal } = original as Record<string, unknown>;
    expect(rest).toEqual(restOriginal);
    expect(JSON.stringify(original)).toBe(before);
  });

  it("cuts long oldText/newText of an edit, nested in arrays, and leaves short values alone", () => {
    const long = (c: string) => `${c}`.repeat(3000);
    const args = {
      path: "src/b.ts",
      edits: [
        { oldText: long("o"), newText: long("n"), replaceAll: false },
        { oldText: "short", newText: "tiny" },
      ],
      count: 2,
    };
    const cut = cutToolCallArguments(assistant(call("edit", args)), large, options);
    const out = argsOf(cut.replacement, 0) as typeof args;
    expect(out.edits[0]!.oldText).toMatch(/^o{120}…\[pruned: 3,000 chars; full arguments: blob_read\(\{"blobId":"[0-9a-f]{12}"\}\)\]…o{120}$/);
    expect(out.edits[0]!.newText).toContain("…[pruned: 3,000 chars;");
    expect(out.edits[0]!.replaceAll).toBe(false);
    expect(out.edits[1]).toBe(args.edits[1]);
    expect(out.count).toBe(2);
    expect(out.path).toBe("src/b.ts");
  });

  it("keeps a path argument whole, however long, so the call still names its file", () => {
    const path = `src/${"deep/".repeat(200)}a.ts`;
    const cut = cutToolCallArguments(assistant(call("write", { path, content: file })), large, { ...options, blobs: false });
    expect(argsOf(cut.replacement, 0).path).toBe(path);
    expect(isCutString(argsOf(cut.replacement, 0).content as string)).toBe(true);
    expect(argsOf(cut.replacement, 0).content).toContain(`the call changed "${path.slice(0, 119)}…": read the file`);
  });

  it("cuts deep in nested arrays of strings", () => {
    const args = { items: [["a", "z".repeat(5000)], [{ deep: ["y".repeat(5000)] }]] };
    const out = argsOf(cutToolCallArguments(assistant(call("batch", args)), large, options).replacement, 0) as typeof args;
    expect(out.items[0]![0]).toBe("a");
    expect(isCutString(out.items[0]![1] as string)).toBe(true);
    expect(isCutString((out.items[1]![0] as { deep: string[] }).deep[0]!)).toBe(true);
  });

  it("names the way back without blobs: the file a call changed, else the session file", () => {
    const noBlobs = { ...options, blobs: false };
    const write = cutToolCallArguments(assistant(call("write", { path: "src/a.ts", content: file })), large, noBlobs);
    expect(argsOf(write.replacement, 0).content).toContain(
      `[pruned: ${file.length.toLocaleString("en-US")} chars; the call changed "src/a.ts": read the file for its current text]`,
    );
    expect(write.blobs).toEqual([]);
    const other = cutToolCallArguments(assistant(call("notes", { body: file })), large, noBlobs);
    expect(argsOf(other.replacement, 0).body).toContain(`chars; kept in the session file]`);
  });

  it("cuts a failed call's arguments whatever maxArgChars says, and says the call failed", () => {
    const args = { command: `cat <<'EOF'\n${"q".repeat(3200)}\nEOF` };
    const original = assistant(call("bash", args));
    expect(cutToolCallArguments(original, large, { ...options, maxArgChars: 0 }).replacement).toBeUndefined();
    const cut = cutToolCallArguments(original, failed, { ...options, maxArgChars: 0, blobs: false });
    expect(argsOf(cut.replacement, 0).command).toContain(
      `[pruned: ${args.command.length.toLocaleString("en-US")} chars of a failed call's arguments; kept in the session file]`,
    );
    expect(cut.summaries[0]).toMatch(/^bash\(\) failed call's arguments [\d,]+ -> [\d,]+ chars$/);
    const withPath = cutToolCallArguments(assistant(call("write", { path: "a.ts", content: file })), failed, { ...options, blobs: false });
    expect(argsOf(withPath.replacement, 0).content).toContain("of a failed call's arguments; kept in the session file]");
  });

  it("cuts only over maxArgChars, and only the calls the plan names", () => {
    const args = { path: "a.ts", content: "x".repeat(1500) };
    expect(cutToolCallArguments(assistant(call("write", args)), large, { ...options, maxArgChars: 2000 }).replacement).toBeUndefined();
    expect(cutToolCallArguments(assistant(call("write", args)), large, { ...options, maxArgChars: 1000 }).replacement).toBeDefined();
    const two = assistant(call("write", { path: "a.ts", content: file }, "keep"), call("write", { path: "b.ts", content: file }, "cut"));
    const cut = cutToolCallArguments(two, (c) => (c.id === "cut" ? "large" : undefined), options);
    expect(blocks(cut.replacement)[0]).toBe(blocks(two)[0]);
    expect(isCutString(argsOf(cut.replacement, 1).content as string)).toBe(true);
    expect(cut.summaries).toHaveLength(1);
  });

  it("never cuts a call on a protected path", () => {
    const isProtected = protectedPathMatcher(["AGENTS.md", "docs/**"], "/repo");
    const plan = (c: ToolCallBlock) => (c.name ? "large" : undefined) as ArgumentCutReason;
    for (const path of ["AGENTS.md", "/repo/docs/x/y.md", "./docs/a.md", "sub/AGENTS.md"]) {
      expect(cutToolCallArguments(assistant(call("write", { path, content: file })), plan, { ...options, isProtected }).replacement).toBeUndefined();
      expect(
        cutToolCallArguments(assistant(call("write", { file_path: path, content: file })), failed, { ...options, isProtected }).replacement,
      ).toBeUndefined();
    }
    expect(cutToolCallArguments(assistant(call("write", { path: "src/a.ts", content: file })), plan, { ...options, isProtected }).replacement).toBeDefined();
  });

  it("keeps the arguments JSON parseable, surrogate pairs whole and odd keys as keys", () => {
    const emoji = "😀".repeat(3000);
    const args = JSON.parse(`{"__proto__": {"x": 1}, "s": ${JSON.stringify(emoji)}, "q": ${JSON.stringify(`"\\\n`.repeat(1000))}}`);
    const cut = cutToolCallArguments(assistant(call("t", args)), large, { ...options, argExcerptChars: 21 });
    const out = argsOf(cut.replacement, 0);
    const json = JSON.stringify(out);
    expect(JSON.parse(json)).toEqual(out);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(json).not.toMatch(/\\ud[89a-f]/i);
    expect((out.s as string).startsWith("😀")).toBe(true);
  });

  it("never grows a message: a cut that does not save characters is not made", () => {
    // Below the cut threshold (2 x excerpt + marker): nothing to cut, the message stays.
    const args = { content: "x".repeat(500) };
    expect(cutToolCallArguments(assistant(call("write", args)), large, { ...options, maxArgChars: 10 }).replacement).toBeUndefined();
    // A marker whose JSON escapes heavily (a path of backslashes) would make a barely-long value longer.
    const noBlobs = { ...options, blobs: false, argExcerptChars: 20, maxArgChars: 1 };
    const path = "\\".repeat(120);
    let kept = 0;
    let cutCount = 0;
    for (let n = 300; n <= 1200; n += 50) {
      const m = assistant(text, call("write", { path, content: "x".repeat(n) }));
      const cut = cutToolCallArguments(m, large, noBlobs);
      if (cut.replacement) {
        cutCount++;
        expect(messageChars(cut.replacement)).toBeLessThan(messageChars(m));
        expect(cut.savedChars).toBe(messageChars(m) - messageChars(cut.replacement));
      } else {
        kept++;
        expect(cut.savedChars).toBe(0);
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(cutCount).toBeGreaterThan(0);
  });

  it("leaves other roles, string content and malformed calls alone", () => {
    const user = { role: "user", content: file } as AgentMessageLike;
    expect(cutToolCallArguments(user, large, options).replacement).toBeUndefined();
    const result = { role: "toolResult", toolCallId: "c", toolName: "write", content: [{ type: "text", text: file }], isError: false } as AgentMessageLike;
    expect(cutToolCallArguments(result, large, options).replacement).toBeUndefined();
    const odd = assistant({ type: "toolCall", id: "c", name: "write", arguments: file }, { type: "toolCall", id: "d", name: "w" });
    expect(cutToolCallArguments(odd, large, options).replacement).toBeUndefined();
    const cyclic: Record<string, unknown> = { content: file };
    cyclic.self = cyclic;
    expect(cutToolCallArguments(assistant(call("write", cyclic)), large, options).replacement).toBeUndefined();
  });

  it("is deterministic and idempotent: the same bytes every time, a second cut changes nothing", () => {
    const make = () =>
      assistant(thinking, call("write", { path: "src/a.ts", content: file }), call("edit", { path: "b", edits: [{ oldText: file, newText: `${file}!` }] }));
    const a = cutToolCallArguments(make(), large, options);
    const b = cutToolCallArguments(make(), large, options);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    for (const o of [options, { ...options, blobs: false }, { ...options, argExcerptChars: 20 }, { ...options, argExcerptChars: 2 }]) {
      const first = cutToolCallArguments(make(), large, o);
      expect(first.replacement).toBeDefined();
      expect(cutToolCallArguments(first.replacement!, large, o).replacement).toBeUndefined();
      expect(cutToolCallArguments(first.replacement!, failed, { ...o, maxArgChars: 0 }).replacement).toBeUndefined();
      // A smaller excerpt later (config changed) does not cut a cut string again.
      expect(cutToolCallArguments(first.replacement!, large, { ...o, argExcerptChars: 0, maxArgChars: 1 }).replacement).toBeUndefined();
    }
  });

  it("still cuts a long text that quotes a marker (a marker counts only when it claims more than the text holds)", () => {
    const quoting = `${file}\nconst m = "…[pruned: 5 chars; kept in the session file]…";\n${file}`;
    expect(isCutString(quoting)).toBe(false);
    expect(isCutString("ab…[pruned: 1,000 chars; kept]…cd")).toBe(true);
    const cut = cutToolCallArguments(assistant(call("write", { path: "a.ts", content: quoting })), large, options);
    expect(isCutString(argsOf(cut.replacement, 0).content as string)).toBe(true);
  });
});

describe("blobIdOf", () => {
  it("equals the id a real BlobStore gives the same text", async () => {
    const root = mkdtempSync(join(tmpdir(), "pigov-argblob-"));
    try {
      const store = new BlobStore({ dir: join(root, "blobs") });
      for (const args of [{ path: "src/a.ts", content: file }, { s: "héllo ✓ 𝄞 😀", n: [1, { x: null }] }, {}]) {
        const text = argumentsBlobText(args);
        const written = await store.put(text);
        expect(written.id).toBe(blobIdOf(text));
        expect(readFileSync(written.path, "utf8")).toBe(text);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
