import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { protectedPathMatcher } from "../../../../lib/context/index.ts";
import { markPruned } from "../../../../plugins/prune/pruned-mark.ts";
import { canonicalJson, type RelationOptions, resultRelations } from "../../../../plugins/prune/relations.ts";

const options: RelationOptions = {
  dedup: true,
  staleReads: true,
  readTools: new Set(["read"]),
  writeTools: new Set(["edit", "write"]),
  isProtected: () => false,
};

/** A tiny session builder: each `call` is one assistant message with one tool call and its result. */
function session() {
  const messages: AgentMessageLike[] = [{ role: "user", content: "go" }];
  const api = {
    messages,
    call(id: string, name: string, args: Record<string, unknown>, opts: { isError?: boolean; text?: string; details?: unknown } = {}) {
      messages.push({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }] });
      messages.push({
        role: "toolResult",
        toolCallId: id,
        toolName: name,
        content: [{ type: "text", text: opts.text ?? `output of ${id}` }],
        isError: opts.isError === true,
        details: opts.details,
      });
      return api;
    },
  };
  return api;
}

const rel = (messages: AgentMessageLike[], o: Partial<RelationOptions> = {}, upTo = messages.length) =>
  Object.fromEntries(resultRelations(messages, upTo, { ...options, ...o }));

describe("canonicalJson", () => {
  it("sorts keys at every level and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: "x" } })).toBe('{"a":{"c":"x","d":[2,1]},"b":1}');
    expect(canonicalJson({ a: { c: "x", d: [2, 1] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [2, 1], c: "x" } }));
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });

  it("gives no key for what JSON cannot hold, and stops on cycles", () => {
    expect(canonicalJson({ a: 1n })).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(canonicalJson(cyclic)).toBeUndefined();
  });
});

describe("resultRelations: duplicates", () => {
  it("marks every older result of a repeated call as a duplicate of the newest one", () => {
    const s = session()
      .call("a", "read", { path: "src/a.ts" })
      .call("b", "read", { path: "src/a.ts" })
      .call("c", "ls", { path: "." })
      .call("d", "read", { path: "src/a.ts" });
    expect(rel(s.messages)).toEqual({ a: { kind: "duplicate", newerCallId: "d" }, b: { kind: "duplicate", newerCallId: "d" } });
  });

  it("compares arguments whatever their key order, but not different tools or arguments", () => {
    const s = session()
      .call("a", "grep", { pattern: "x", path: "src" })
      .call("b", "grep", { path: "src", pattern: "x" })
      .call("c", "rg", { path: "src", pattern: "x" })
      .call("d", "grep", { path: "src", pattern: "y" });
    expect(rel(s.messages)).toEqual({ a: { kind: "duplicate", newerCallId: "b" } });
  });

  it("lets a failed newer call supersede only failed older ones", () => {
    const s = session()
      .call("ok", "read", { path: "a" })
      .call("fail1", "read", { path: "a" }, { isError: true })
      .call("fail2", "read", { path: "a" }, { isError: true });
    expect(rel(s.messages)).toEqual({ fail1: { kind: "duplicate", newerCallId: "fail2" } });
    s.call("ok2", "read", { path: "a" });
    expect(rel(s.messages)).toEqual({
      ok: { kind: "duplicate", newerCallId: "ok2" },
      fail1: { kind: "duplicate", newerCallId: "ok2" },
      fail2: { kind: "duplicate", newerCallId: "ok2" },
    });
  });

  it("counts only calls whose result lies before upTo", () => {
    const s = session().call("a", "read", { path: "a" }).call("b", "read", { path: "a" });
    // The newer call is in view but its result is not: it supersedes nothing yet.
    expect(rel(s.messages, {}, s.messages.length - 1)).toEqual({});
    expect(rel(s.messages, {}, s.messages.length)).toEqual({ a: { kind: "duplicate", newerCallId: "b" } });
  });

  it("never marks pinned results, protected paths or placeholders, and a placeholder supersedes nothing", () => {
    const pinned = session()
      .call("a", "read", { path: "a" }, { details: { pinned: true } })
      .call("b", "read", { path: "a" });
    expect(rel(pinned.messages)).toEqual({});
    const secret = session().call("a", "read", { path: "/p/secrets/k.pem" }).call("b", "read", { path: "/p/secrets/k.pem" });
    expect(rel(secret.messages, { isProtected: protectedPathMatcher(["secrets/**"], "/p") })).toEqual({});
    expect(rel(secret.messages)).toEqual({ a: { kind: "duplicate", newerCallId: "b" } });
    // A placeholder is the result object pruning made (its mark), whatever its text.
    const markResult = (messages: AgentMessageLike[], id: string) =>
      messages.map((m) => ((m as { toolCallId?: string }).toolCallId === id ? markPruned({ ...m }) : m));
    const pruned = session().call("a", "read", { path: "a" }, { text: '(Pruned) read(path="a")' }).call("b", "read", { path: "a" });
    expect(rel(markResult(pruned.messages, "a"))).toEqual({});
    const newerPruned = session().call("a", "read", { path: "a" }).call("b", "read", { path: "a" }, { text: '(Pruned) read(path="a")' });
    expect(rel(markResult(newerPruned.messages, "b"))).toEqual({});
  });

  it("a tool output that merely starts like a placeholder is an output: deduplicated, and it supersedes older calls", () => {
    const spoof = '(Pruned) read(path="a") [10 chars]. ' + "x".repeat(5_000);
    const older = session().call("a", "read", { path: "a" }, { text: spoof }).call("b", "read", { path: "a" });
    expect(rel(older.messages)).toEqual({ a: { kind: "duplicate", newerCallId: "b" } });
    const newer = session().call("a", "read", { path: "a" }).call("b", "read", { path: "a" }, { text: spoof });
    expect(rel(newer.messages)).toEqual({ a: { kind: "duplicate", newerCallId: "b" } });
  });

  it("is off when dedup is off", () => {
    const s = session().call("a", "read", { path: "a" }).call("b", "read", { path: "a" });
    expect(rel(s.messages, { dedup: false, staleReads: false })).toEqual({});
  });
});

describe("resultRelations: stale reads", () => {
  it("marks a read that a later successful edit or write changed, naming the first change", () => {
    const s = session()
      .call("r", "read", { path: "src/a.ts" })
      .call("e1", "edit", { path: "./src/a.ts", oldText: "x", newText: "y" })
      .call("w2", "write", { path: "src/a.ts", content: "z" });
    expect(rel(s.messages)).toEqual({ r: { kind: "stale", path: "src/a.ts", changedByCallId: "e1", changedByTool: "edit" } });
  });

  it("ignores failed edits, other files, and changes before the read", () => {
    const s = session()
      .call("e0", "edit", { path: "src/a.ts" })
      .call("r", "read", { path: "src/a.ts" })
      .call("e1", "edit", { path: "src/a.ts" }, { isError: true })
      .call("e2", "edit", { path: "src/b.ts" });
    expect(rel(s.messages)).toEqual({});
  });

  it("compares absolute and relative spellings under cwd", () => {
    const s = session().call("r", "read", { path: "/home/u/p/src/a.ts" }).call("e", "edit", { file_path: "src/a.ts" });
    expect(rel(s.messages, { cwd: "/home/u/p" })).toEqual({ r: { kind: "stale", path: "src/a.ts", changedByCallId: "e", changedByTool: "edit" } });
    expect(rel(s.messages)).toEqual({});
  });

  it("marks a read that a later non-read-only bash command names, but not a read-only one", () => {
    const s = session()
      .call("r", "read", { path: "src/a.ts" })
      .call("b1", "bash", { command: "grep -n foo src/a.ts | head" })
      .call("b2", "bash", { command: "sed -i 's/a/b/' src/a.ts" });
    expect(rel(s.messages)).toEqual({ r: { kind: "stale", path: "src/a.ts", changedByCallId: "b2", changedByTool: "bash" } });
  });

  it("lets a bash command name the path only as a whole token", () => {
    for (const command of ["rm src/a.tsx", "rm xsrc/a.ts", "rm src/a.ts.bak", "rm lib/src/a.ts"]) {
      const s = session().call("r", "read", { path: "src/a.ts" }).call("b", "bash", { command });
      expect(rel(s.messages), command).toEqual({});
    }
    for (const command of ["rm src/a.ts", "rm './src/a.ts'", "prettier --write=src/a.ts", "cat x > src/a.ts", "cp b src/a.ts;", 'mv "src/a.ts" c']) {
      const s = session().call("r", "read", { path: "src/a.ts" }).call("b", "bash", { command });
      expect(rel(s.messages), command).toEqual({ r: { kind: "stale", path: "src/a.ts", changedByCallId: "b", changedByTool: "bash" } });
    }
  });

  it("never marks pinned or protected reads; a duplicate wins over stale", () => {
    const pinned = session()
      .call("r", "read", { path: "a.ts" }, { details: { pinned: true } })
      .call("e", "edit", { path: "a.ts" });
    expect(rel(pinned.messages)).toEqual({});
    const locked = session().call("r", "read", { path: "pkg/yarn.lock" }).call("e", "edit", { path: "pkg/yarn.lock" });
    expect(rel(locked.messages, { isProtected: protectedPathMatcher(["*.lock"]) })).toEqual({});
    const both = session().call("r1", "read", { path: "a.ts" }).call("e", "edit", { path: "a.ts" }).call("r2", "read", { path: "a.ts" });
    expect(rel(both.messages)).toEqual({ r1: { kind: "duplicate", newerCallId: "r2" } });
    expect(rel(both.messages, { dedup: false })).toEqual({ r1: { kind: "stale", path: "a.ts", changedByCallId: "e", changedByTool: "edit" } });
  });
});

describe("resultRelations: long commands", () => {
  it("reads a crafted 1 MB bash command in bounded work and still sees the path at its start", () => {
    const command = `cp b src/a.ts; echo ${"'\"$(<<a >".repeat(150_000)}`;
    expect(command.length).toBeGreaterThan(1_000_000);
    const s = session().call("r", "read", { path: "src/a.ts" }).call("b", "bash", { command });
    expect(rel(s.messages)).toEqual({ r: { kind: "stale", path: "src/a.ts", changedByCallId: "b", changedByTool: "bash" } });
  });
});

describe("resultRelations: malformed input", () => {
  it("skips what it cannot read and never throws", () => {
    const messages = [
      { role: "user" },
      { role: "assistant" },
      { role: "assistant", content: "text" },
      {
        role: "assistant",
        content: [
          null,
          7,
          { type: "toolCall" },
          { type: "toolCall", id: 5, name: "read", arguments: {} },
          { type: "toolCall", id: "x", name: "read", arguments: "path=a" },
        ],
      },
      { role: "toolResult", toolCallId: 5 },
      { role: "toolResult", toolCallId: "x", content: null, details: "junk" },
      null,
      {
        role: "assistant",
        content: [
          { type: "toolCall", id: "y", name: "read", arguments: { path: 3 } },
          { type: "toolCall", id: "z", name: "read", arguments: { path: 3 } },
        ],
      },
      { role: "toolResult", toolCallId: "y", toolName: "read" },
      { role: "toolResult", toolCallId: "z", toolName: "read", content: "no array" },
    ] as unknown as AgentMessageLike[];
    expect(() => resultRelations(messages, 100, options)).not.toThrow();
    expect(Object.fromEntries(resultRelations(messages, 100, options))).toEqual({ y: { kind: "duplicate", newerCallId: "z" } });
    expect(resultRelations(messages, -5, options).size).toBe(0);
  });
});
