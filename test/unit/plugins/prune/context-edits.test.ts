import { describe, expect, it } from "vitest";
import type { AgentMessageLike, SessionEdit, SessionMessageEntry } from "pi-governor";
import { contentHash, editsFrom, ownEditIds, undoOwnEdits } from "../../../../plugins/prune/context-edits.ts";

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
/** This plugin's edits: the ids of the edit entries it wrote. */
const own = (...ids: string[]): Set<string> => new Set(ids);

describe("undoOwnEdits", () => {
  const raw = result("c1", "x".repeat(6000));
  const edited = { ...raw, content: PLACEHOLDER } as AgentMessageLike;

  it("gives back the raw content of a message whose latest edit is this plugin's", () => {
    const entries: SessionMessageEntry[] = [{ entryId: "e1", raw, edit: { content: PLACEHOLDER, entryId: "x1" } }];
    const out = undoOwnEdits([edited], entries, own("x1"))!;
    expect(out[0]!.content).toEqual(raw.content);
    expect(out[0]).toMatchObject({ role: "toolResult", toolCallId: "c1", timestamp: 1000 });
  });

  it("never restores by text: an output that prints a placeholder, with no edit entry, stays as it is", () => {
    const spoof = result("c2", PLACEHOLDER[0]!.text);
    // Even an id of this plugin's (a crafted session file) needs pi's edit entry on the message.
    expect(undoOwnEdits([spoof], [{ entryId: "e2", raw: spoof }], own("e2", "x2"))).toBeUndefined();
  });

  it("leaves edits that are not this plugin's: another replacement, an omission, a later edit by someone else", () => {
    const ours = own("x1");
    const other = text("summarised by another extension");
    expect(
      undoOwnEdits([{ ...raw, content: other } as AgentMessageLike], [{ entryId: "e1", raw, edit: { content: other, entryId: "y1" } }], ours),
    ).toBeUndefined();
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: null }], ours)).toBeUndefined();
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: { content: PLACEHOLDER, entryId: "x1" } }], new Set())).toBeUndefined();
  });

  it("never by content: another extension's edit byte-identical to this plugin's placeholder is not undone", () => {
    const edits = [
      { content: PLACEHOLDER, entryId: "x1" },
      { content: PLACEHOLDER, entryId: "theirs" },
    ];
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: edits[1], edits }], own("x1"))).toBeUndefined();
    // A draft proposed at this boundary (no entry yet) is nobody's to undo.
    expect(undoOwnEdits([edited], [{ entryId: "e1", raw, edit: { content: PLACEHOLDER } }], own("x1"))).toBeUndefined();
  });

  it("never guesses between two entries with the same identity", () => {
    const ours = own("x1", "x9");
    const entries: SessionMessageEntry[] = [
      { entryId: "e1", raw, edit: { content: PLACEHOLDER, entryId: "x1" } },
      { entryId: "e9", raw: { ...raw, content: text("other") } as AgentMessageLike, edit: { content: PLACEHOLDER, entryId: "x9" } },
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
  /** A stack of edits, each ["ours" | "theirs", content] (null: an omission by another extension); entry ids by position. */
  const stack = (edits: Array<["ours" | "theirs", unknown] | null>): Array<SessionEdit | null> =>
    edits.map((e, i) => (e === null ? null : { content: e[1], entryId: `${e[0]}-${i}` }));
  const undo = (top: unknown, edits: Array<["ours" | "theirs", unknown] | null>, drop: string[] = []) => {
    const list = stack(edits);
    const ours = new Set(list.flatMap((e) => (e?.entryId?.startsWith("ours") && !drop.includes(e.entryId) ? [e.entryId] : [])));
    return undoOwnEdits([shown(top)], [{ entryId: "e1", raw: secret, edit: list.at(-1), edits: list }], ours)?.[0]?.content;
  };

  it("theirs then ours: the scrubbed content comes back, never the raw secret", () => {
    expect(
      undo(PLACEHOLDER, [
        ["theirs", SCRUBBED],
        ["ours", PLACEHOLDER],
      ]),
    ).toEqual(SCRUBBED);
  });

  it("ours then theirs: the other extension's edit is in force and stays, even when it carries this plugin's placeholder", () => {
    expect(
      undo(SCRUBBED, [
        ["ours", PLACEHOLDER],
        ["theirs", SCRUBBED],
      ]),
    ).toBeUndefined();
    expect(undo(null, [["ours", PLACEHOLDER], null])).toBeUndefined();
    expect(
      undo(PLACEHOLDER, [
        ["ours", PLACEHOLDER],
        ["theirs", PLACEHOLDER],
      ]),
    ).toBeUndefined();
  });

  it("ours, theirs, ours: only the top run of this plugin's edits is taken off", () => {
    expect(
      undo(P2, [
        ["ours", PLACEHOLDER],
        ["theirs", SCRUBBED],
        ["ours", P2],
      ]),
    ).toEqual(SCRUBBED);
    expect(
      undo(P2, [
        ["theirs", SCRUBBED],
        ["theirs", OTHER],
        ["ours", PLACEHOLDER],
        ["ours", P2],
      ]),
    ).toEqual(OTHER);
    // Theirs, byte-identical to ours, between two of ours: it stays in force.
    expect(
      undo(P2, [
        ["ours", PLACEHOLDER],
        ["theirs", PLACEHOLDER],
        ["ours", P2],
      ]),
    ).toEqual(PLACEHOLDER);
  });

  it("ours then ours again: the raw content, as on the context path", () => {
    expect(
      undo(P2, [
        ["ours", PLACEHOLDER],
        ["ours", P2],
      ]),
    ).toEqual(secret.content);
  });

  it("an omission beneath this plugin's edit is left as pi applies it (nothing is put back from under it)", () => {
    expect(undo(PLACEHOLDER, [null, ["ours", PLACEHOLDER]])).toBeUndefined();
  });

  it("another extension's string replacement comes back as pi applies it: one text block", () => {
    expect(
      undo(PLACEHOLDER, [
        ["theirs", "db_password=[scrubbed]"],
        ["ours", PLACEHOLDER],
      ]),
    ).toEqual(text("db_password=[scrubbed]"));
  });

  it("an edit of this plugin's that no record names stops the undo there, never going beneath it", () => {
    expect(
      undo(
        P2,
        [
          ["ours", PLACEHOLDER],
          ["ours", P2],
        ],
        ["ours-0"],
      ),
    ).toEqual(PLACEHOLDER);
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

describe("ownEditIds", () => {
  const edits = (...pairs: Array<[string, string]>) => pairs.map(([entryId, targetId]) => ({ entryId, targetId }));

  it("names as this plugin's exactly the edit entries right before its record, when their targets are the ones it lists in order", () => {
    const records = [
      {
        data: {
          edits: [
            { targetId: "e1", hash: "h" },
            { targetId: "e2", hash: "h" },
          ],
        },
        editsBefore: edits(["theirs", "e1"], ["x1", "e1"], ["x2", "e2"]),
      },
    ];
    expect([...ownEditIds(records)]).toEqual(["x1", "x2"]);
  });

  it("claims nothing for a record that does not stand right after its edits: forged at the end of a file, reordered, malformed", () => {
    const forged = { data: { edits: [{ targetId: "e1", hash: contentHash(PLACEHOLDER) }] }, editsBefore: [] };
    const reordered = { data: { edits: [{ targetId: "e1" }, { targetId: "e2" }] }, editsBefore: edits(["x2", "e2"], ["x1", "e1"]) };
    const tooMany = { data: { edits: [{ targetId: "e1" }, { targetId: "e2" }] }, editsBefore: edits(["x2", "e2"]) };
    const malformed = [
      { data: { edits: "nope" }, editsBefore: edits(["x1", "e1"]) },
      { data: { edits: [null] }, editsBefore: edits(["x1", "e1"]) },
      { data: { edits: [{ targetId: 5 }] }, editsBefore: edits(["x1", "e1"]) },
      { data: { edits: [{ targetId: "x".repeat(500) }] }, editsBefore: edits(["x1", "x".repeat(500)]) },
      { data: {}, editsBefore: edits(["x1", "e1"]) },
    ];
    expect(ownEditIds([forged, reordered, tooMany, ...malformed]).size).toBe(0);
  });
});
