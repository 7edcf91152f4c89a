import { describe, expect, it } from "vitest";
import { appliesContextEdits, sessionMessageEntries, sessionRecords } from "../../../../host/pi/session-entries.ts";

const msg = (id: string, role = "toolResult") => ({ type: "message", id, message: { role, content: [{ type: "text", text: id }], timestamp: 1 } });

describe("sessionMessageEntries", () => {
  it("pairs each message entry with the latest edit on the branch; drafts of the same boundary apply last", () => {
    const branch = [
      msg("m1"),
      msg("m2"),
      { type: "context_edit", id: "x1", targetId: "m1", replacement: { content: [{ type: "text", text: "first" }] } },
      { type: "context_edit", id: "x2", targetId: "m1", replacement: { content: [{ type: "text", text: "second" }] } },
      { type: "context_edit", id: "x3", targetId: "m2", replacement: null },
      { type: "custom", id: "c1" },
    ];
    const sm = { getBranch: () => branch };
    const entries = sessionMessageEntries(sm);
    expect(entries.map((e) => e.entryId)).toEqual(["m1", "m2"]);
    expect(entries[0]!.edit).toEqual({ content: [{ type: "text", text: "second" }], entryId: "x2" });
    // Every edit, oldest first, with its entry's id: undoing one's own edit puts back the one beneath it.
    expect(entries[0]!.edits).toEqual([
      { content: [{ type: "text", text: "first" }], entryId: "x1" },
      { content: [{ type: "text", text: "second" }], entryId: "x2" },
    ]);
    expect(entries[1]!.edit).toBeNull();
    const withDraft = sessionMessageEntries(sm, [
      { type: "context_edit", targetId: "m2", replacement: { content: "x" } },
      { type: "custom", customType: "k" },
    ]);
    expect(withDraft[1]!.edit).toEqual({ content: "x" });
    expect(withDraft[1]!.edits).toEqual([null, { content: "x" }]);
    expect(sessionMessageEntries({ getBranch: () => [msg("m3")] })[0]).not.toHaveProperty("edit");
  });
});

describe("sessionRecords", () => {
  it("gives each record of a kind the run of edit entries right before it on the branch", () => {
    const edit = (id: string, targetId: string) => ({ type: "context_edit", id, targetId, replacement: { content: "p" } });
    const branch = [
      msg("m1"),
      edit("x1", "m1"),
      { type: "custom", id: "r1", customType: "k", data: { n: 1 } },
      edit("y1", "m1"),
      msg("m2"),
      edit("x2", "m1"),
      edit("x3", "m2"),
      { type: "custom", id: "r2", customType: "k", data: { n: 2 } },
      { type: "custom", id: "r3", customType: "other", data: {} },
      { type: "custom", id: "r4", customType: "k", data: { n: 4 } },
    ];
    expect(sessionRecords({ getBranch: () => branch }, "k")).toEqual([
      { data: { n: 1 }, editsBefore: [{ entryId: "x1", targetId: "m1" }] },
      {
        data: { n: 2 },
        editsBefore: [
          { entryId: "x2", targetId: "m1" },
          { entryId: "x3", targetId: "m2" },
        ],
      },
      { data: { n: 4 }, editsBefore: [] },
    ]);
  });
});

describe("appliesContextEdits", () => {
  it("is the capability, not a version: a session manager that builds a projection", () => {
    expect(appliesContextEdits({ getBranch: () => [], buildSessionProjection: () => ({}) })).toBe(true);
    expect(appliesContextEdits({ getBranch: () => [], buildSessionContext: () => ({}) })).toBe(false);
    expect(appliesContextEdits(undefined)).toBe(false);
  });
});
