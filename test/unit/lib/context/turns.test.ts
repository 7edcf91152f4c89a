import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import { protectedFrom, turnStarts } from "../../../../lib/context/index.ts";

const m = (role: string): AgentMessageLike => ({ role, content: [] });

describe("turns", () => {
  const messages = [m("compactionSummary"), m("user"), m("assistant"), m("toolResult"), m("assistant"), m("user"), m("assistant"), m("custom"), m("user")];

  it("start at each user message; messages before the first user message belong to no turn", () => {
    expect(turnStarts(messages)).toEqual([1, 5, 8]);
  });

  it("protect the last K turns: everything from the K-th last user message on", () => {
    const starts = turnStarts(messages);
    expect(protectedFrom(starts, 1)).toBe(8);
    expect(protectedFrom(starts, 2)).toBe(5);
    expect(protectedFrom(starts, 3)).toBe(0);
    expect(protectedFrom(starts, 9)).toBe(0);
  });
});
