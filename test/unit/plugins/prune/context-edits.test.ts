import { describe, expect, it } from "vitest";
import { type AgentMessageLike, memorySessionStore, type SessionMessageEntry } from "../../../../core/index.ts";
import {
  contentHash,
  EDITS_KIND,
  editsFrom,
  loadEditRecords,
  MAX_EDIT_RECORDS,
  MAX_HASHES_PER_TARGET,
  type OwnEdits,
  remember,
  undoOwnEdits,
} from "../../../../plugins/prune/context-edits.ts";

const text = (t: string) => [{ type: "text", text: t }];
const result = (id: string, body: string, timestamp = 1000): AgentMessageLike => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "read",
  content: text(body),
  isError: false,
  timestamp,
});
const PLACEHOLDER = text('(Pruned) read(path="a.ts") [6000 chars]. Re-read it.');
/** This plugin's records: target -> the replacements it wrote there. */
const own = (...records: Array<[string, ...unknown[]]>): OwnEdits => new Map(records.map(([id, ...contents]) => [id, new Set(contents.map(contentHash))]));

describe("undoOwnEdits", () => {
  const raw = result("c1", "x".repeat(6000));
  const edited = { ...raw, content: PLACEHOLDER } as AgentMessageLike;

  it("gives back the raw content of a message whose latest edit is this plugin's", () => {
    const entries: SessionMessageEntry[] = [{ entryId: "e1", raw, edit: { content: PLACEHOLDER } }];
    const out = undoOwnEdits([edited], entries, own(["e1", PLACEHOLDER]))!;
    expect(out[0]!.content).toEqual(raw.content);
    expect(out[0]).toMatchObject({ role: "toolResult", toolCallId: "c1", timestamp: 1000 });
  });

  it("never restores by text: an output that prints a placeholder, with no edit entry, stays as it is", () => {
    const spoof = result("c2", PLACEHOLDER[0]!.text);
    // Even a record of this plugin naming the entry (a crafted session file) needs pi's edit entry.
    const ours = own(["e2", PLACEHOLDER]);
    expect(undoOwnEdits([spoof], [{ entryId: "e2", raw: spoof }], ours)).toBeUndefined();
  });

  it("leaves edits that are not this plugin's: another replacement, an omission, a later edit by someone else", () => {
    const ours = own(["e1", PLACEHOLDER]);
    const other = text("summarised by another extension");
    expect(undoOwnEdits([{ ...raw, content: other } as AgentMessageLike], [{ entryId: "e1", raw, edit: { content: other } }], ours)).toBeUndefined();
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: null }], ours)).toBeUndefined();
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: { content: PLACEHOLDER } }], new Map())).toBeUndefined();
  });

  it("never guesses between two entries with the same identity", () => {
    const ours = own(["e1", PLACEHOLDER], ["e9", PLACEHOLDER]);
    const entries: SessionMessageEntry[] = [
      { entryId: "e1", raw, edit: { content: PLACEHOLDER } },
      { entryId: "e9", raw: { ...raw, content: text("other") } as AgentMessageLike, edit: { content: PLACEHOLDER } },
    ];
    expect(undoOwnEdits([edited], entries, ours)).toBeUndefined();
  });
});

describe("undoOwnEdits with another extension's edits in the stack", () => {
  const secret = result("c1", "db_password=hunter2\n" + "x".repeat(6000));
  const SCRUBBED = text("db_password=[scrubbed]\n" + "x".repeat(6000));
  const OTHER = text("summarised by another extension");
  const P2 = text('(Pruned) read(path="a.ts") [6022 chars]');
  const shown = (content: unknown) => ({ ...secret, content }) as AgentMessageLike;
  const entry = (edits: Array<{ content: unknown } | null>): SessionMessageEntry[] => [{ entryId: "e1", raw: secret, edit: edits.at(-1), edits }];
  const undo = (top: unknown, edits: Array<{ content: unknown } | null>, ours = own(["e1", PLACEHOLDER, P2])) =>
    undoOwnEdits([shown(top)], entry(edits), ours)?.[0]?.content;

  it("theirs then ours: the scrubbed content comes back, never the raw secret", () => {
    expect(undo(PLACEHOLDER, [{ content: SCRUBBED }, { content: PLACEHOLDER }])).toEqual(SCRUBBED);
  });

  it("ours then theirs: the other extension's edit is in force and stays", () => {
    expect(undo(SCRUBBED, [{ content: PLACEHOLDER }, { content: SCRUBBED }])).toBeUndefined();
    expect(undo(null, [{ content: PLACEHOLDER }, null])).toBeUndefined();
  });

  it("ours, theirs, ours: only the top run of this plugin's edits is taken off", () => {
    expect(undo(P2, [{ content: PLACEHOLDER }, { content: SCRUBBED }, { content: P2 }])).toEqual(SCRUBBED);
    expect(undo(P2, [{ content: SCRUBBED }, { content: OTHER }, { content: PLACEHOLDER }, { content: P2 }])).toEqual(OTHER);
  });

  it("ours then ours again: the raw content, as on the context path", () => {
    expect(undo(P2, [{ content: PLACEHOLDER }, { content: P2 }])).toEqual(secret.content);
  });

  it("an omission beneath this plugin's edit is left as pi applies it (nothing is put back from under it)", () => {
    expect(undo(PLACEHOLDER, [null, { content: PLACEHOLDER }])).toBeUndefined();
  });

  it("another extension's string replacement comes back as pi applies it: one text block", () => {
    expect(undo(PLACEHOLDER, [{ content: "db_password=[scrubbed]" }, { content: PLACEHOLDER }])).toEqual(text("db_password=[scrubbed]"));
  });

  it("an edit of this plugin's that is no longer in its records stops the undo there, never going beneath it", () => {
    // Records for P2 only: PLACEHOLDER (older, its hash dropped) is left in force, the raw secret is not reached.
    expect(undo(P2, [{ content: PLACEHOLDER }, { content: P2 }], own(["e1", P2]))).toEqual(PLACEHOLDER);
  });
});

describe("editsFrom", () => {
  const a = result("c1", "a".repeat(5000), 1);
  const b = result("c2", "b".repeat(5000), 2);
  const user = { role: "user", content: "hi", timestamp: 0 } as AgentMessageLike;
  const entries: SessionMessageEntry[] = [
    { entryId: "u", raw: user },
    { entryId: "ea", raw: a },
    { entryId: "eb", raw: b },
  ];

  it("one context_edit per message whose content the pruner changed, with pi's { content } shape", () => {
    const input = [user, a, b];
    const output = [user, { ...a, content: PLACEHOLDER } as AgentMessageLike, b];
    const { drafts, records } = editsFrom(input, output, entries);
    expect(drafts).toEqual([{ type: "context_edit", targetId: "ea", replacement: { content: PLACEHOLDER } }]);
    expect(records).toEqual([{ targetId: "ea", hash: contentHash(PLACEHOLDER) }]);
    // A copy: pi's entry never shares the pruner's object.
    expect(drafts[0]!.replacement!.content).not.toBe(output[1]!.content);
  });

  it("nothing for a content-equal copy (the pruner reuses earlier objects), an edit already in the session, or a message without an entry", () => {
    const copy = { ...a, content: structuredClone(a.content) } as AgentMessageLike;
    expect(editsFrom([user, a, b], [user, copy, b], entries).drafts).toEqual([]);
    const applied = entries.map((e) => (e.entryId === "ea" ? { ...e, edit: { content: PLACEHOLDER } } : e));
    expect(editsFrom([user, a, b], [user, { ...a, content: PLACEHOLDER } as AgentMessageLike, b], applied).drafts).toEqual([]);
    // A nested call's result is never in the session's messages: nothing to target.
    const nested = result("nested-1", "n".repeat(5000), 3);
    expect(editsFrom([nested], [{ ...nested, content: PLACEHOLDER } as AgentMessageLike], entries).drafts).toEqual([]);
    // The user's own messages are never edited.
    expect(editsFrom([user], [{ ...user, content: "changed" } as AgentMessageLike], entries).drafts).toEqual([]);
  });

  it("an output object found settled is not hashed again", () => {
    const settled = new WeakSet<object>();
    const out = { ...a, content: PLACEHOLDER } as AgentMessageLike;
    const applied = entries.map((e) => (e.entryId === "ea" ? { ...e, edit: { content: PLACEHOLDER } } : e));
    editsFrom([user, a, b], [user, out, b], applied, settled);
    expect(settled.has(out)).toBe(true);
    // Settled: even against entries without the edit, the object is skipped (no re-hash per boundary).
    expect(editsFrom([user, a, b], [user, out, b], entries, settled).drafts).toEqual([]);
  });

  it("an assistant message with cut call arguments is edited; two assistants in one millisecond are told apart by their calls", () => {
    const call = (id: string, content: string) => ({ type: "toolCall", id, name: "write", arguments: { path: "f.ts", content } });
    const first = { role: "assistant", content: [call("w1", "z".repeat(3000))], timestamp: 5 } as AgentMessageLike;
    const second = { role: "assistant", content: [call("w2", "y".repeat(3000))], timestamp: 5 } as AgentMessageLike;
    const cut = { ...second, content: [call("w2", "yyy…[cut]")] } as AgentMessageLike;
    const list: SessionMessageEntry[] = [
      { entryId: "a1", raw: first },
      { entryId: "a2", raw: second },
    ];
    expect(editsFrom([first, second], [first, cut], list).drafts.map((d) => d.targetId)).toEqual(["a2"]);
  });
});

describe("edit records", () => {
  it("loads this plugin's records, skipping malformed and oversized ones; every replacement of a target is kept", () => {
    const store = memorySessionStore();
    store.append(EDITS_KIND, { edits: [{ targetId: "e1", hash: "h1" }, { targetId: 5, hash: "x" }, { targetId: "x".repeat(500), hash: "h" }, null] });
    store.append(EDITS_KIND, { edits: "nope" });
    store.append(EDITS_KIND, {
      edits: [
        { targetId: "e1", hash: "h2" },
        { targetId: "e2", hash: "y".repeat(65) },
      ],
    });
    expect([...loadEditRecords(store)]).toEqual([["e1", new Set(["h1", "h2"])]]);
  });

  it("keeps at most MAX_EDIT_RECORDS targets and MAX_HASHES_PER_TARGET replacements each, dropping the oldest", () => {
    const ours: OwnEdits = new Map();
    for (let i = 0; i <= MAX_EDIT_RECORDS; i++) remember(ours, `e${i}`, "h");
    expect(ours.size).toBe(MAX_EDIT_RECORDS);
    expect(ours.has("e0")).toBe(false);
    for (let i = 0; i <= MAX_HASHES_PER_TARGET; i++) remember(ours, "e1", `h${i}`);
    expect(ours.get("e1")!.size).toBe(MAX_HASHES_PER_TARGET);
    expect(ours.get("e1")!.has("h0")).toBe(false);
  });
});
