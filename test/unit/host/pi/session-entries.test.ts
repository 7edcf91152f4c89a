import { describe, expect, it } from "vitest";
import { appliesContextEdits, sessionMessageEntries } from "../../../../host/pi/session-entries.ts";

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
    expect(entries[0]!.edit).toEqual({ content: [{ type: "text", text: "second" }] });
    // Every edit, oldest first: undoing one's own edit puts back the one beneath it.
    expect(entries[0]!.edits).toEqual([{ content: [{ type: "text", text: "first" }] }, { content: [{ type: "text", text: "second" }] }]);
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

describe("appliesContextEdits", () => {
  it("is the capability, not a version: a session manager that builds a projection", () => {
    expect(appliesContextEdits({ getBranch: () => [], buildSessionProjection: () => ({}) })).toBe(true);
    expect(appliesContextEdits({ getBranch: () => [], buildSessionContext: () => ({}) })).toBe(false);
    expect(appliesContextEdits(undefined)).toBe(false);
  });
});
