import { describe, expect, it } from "vitest";
import type { AgentMessageLike, ToolResultValue } from "pi-governor";
import { pruneDefaults } from "../../../../plugins/prune/config.ts";
import { PIN_MARKER } from "../../../../plugins/prune/pin-marker.ts";
import { isPinned, lastMeaningBearing, pinOnArrival, pinResult } from "../../../../plugins/prune/pins.ts";
import { markPruned } from "../../../../plugins/prune/pruned-mark.ts";

const value = (toolName: string, isError = false, details: Record<string, unknown> = {}): ToolResultValue => ({
  toolName,
  toolCallId: "c1",
  input: {},
  content: [{ type: "text", text: "Risk: high" }],
  details,
  isError,
});
const result = (id: string, toolName: string, text: string, extra: Record<string, unknown> = {}): AgentMessageLike =>
  ({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError: false, ...extra }) as AgentMessageLike;

describe("pinOnArrival: the pin list in force", () => {
  it("is pinTools plus the impactTools while pinImpactSummaries is on", () => {
    const options = { ...pruneDefaults, pinTools: ["a"], impactTools: ["kota_impact"] };
    expect([...pinOnArrival(options)].sort()).toEqual(["a", "kota_impact"]);
    expect([...pinOnArrival({ ...options, pinImpactSummaries: false })]).toEqual(["a"]);
    expect(pinOnArrival(pruneDefaults).size).toBe(0);
  });
});

describe("pinResult: the toolResult transform", () => {
  const pinned = new Set(["kota_impact"]);

  it("pins a listed tool's result with meta.pinned and the visible marker first", () => {
    const out = pinResult(value("kota_impact"), pinned)!;
    expect(out.details).toMatchObject({ pinned: true });
    expect(out.content[0]).toEqual({ type: "text", text: PIN_MARKER });
    expect(out.content.slice(1)).toEqual(value("kota_impact").content);
  });

  it("returns undefined (no change) for other tools, errors and results pinned already", () => {
    expect(pinResult(value("read"), pinned)).toBeUndefined();
    expect(pinResult(value("kota_impact", true), pinned)).toBeUndefined();
    const once = pinResult(value("kota_impact"), pinned)!;
    expect(pinResult(once, pinned)).toBeUndefined();
  });
});

describe("isPinned", () => {
  it("is true for a result pinned on arrival or by the user, false otherwise", () => {
    const arrived = result("a", "kota_impact", "x", { details: { pinned: true } });
    expect(isPinned(arrived, new Map())).toBe(true);
    expect(isPinned(result("b", "read", "x"), new Map([["b", {}]]))).toBe(true);
    expect(isPinned(result("c", "read", "x"), new Map([["b", {}]]))).toBe(false);
    // A user pin names a tool call id: an assistant message with that id is not a pinned result.
    expect(isPinned({ role: "assistant", toolCallId: "b", content: [] } as unknown as AgentMessageLike, new Map([["b", {}]]))).toBe(false);
  });
});

describe("lastMeaningBearing: what the pin command pins", () => {
  it("is the newest successful, non-empty, non-placeholder result of a tool not skipped", () => {
    const list = [
      result("a", "read", "file a"),
      result("b", "read", "   "),
      result("c", "blob_read", "page"),
      result("d", "bash", "boom", { isError: true }),
      markPruned(result("e", "read", "[Pruned]")),
    ];
    expect(lastMeaningBearing(list, new Set(["blob_read"]))).toEqual({ toolCallId: "a", toolName: "read", index: 0 });
    expect(lastMeaningBearing(list, new Set())).toEqual({ toolCallId: "c", toolName: "blob_read", index: 2 });
    expect(lastMeaningBearing([], new Set())).toBeUndefined();
  });
});
