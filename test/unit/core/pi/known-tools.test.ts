import { describe, expect, it } from "vitest";
import { piToolNamesFrom } from "../../../../core/pi/known-tools.ts";

describe("piToolNamesFrom", () => {
  it("knows pi's tools, learns tools registered later, and names an invented one unknown", () => {
    const tools = [{ name: "read" }, { name: "bash" }];
    let reads = 0;
    const has = piToolNamesFrom({
      getAllTools: () => {
        reads++;
        return tools as never;
      },
    });
    expect(has("read")).toBe(true);
    expect(has("x".repeat(65_540))).toBe(false);
    tools.push({ name: "mcp__acme__search" });
    expect(has("mcp__acme__search")).toBe(true);
    const before = reads;
    expect(has("read")).toBe(true);
    expect(reads).toBe(before);
  });

  it("counts every name as known while pi's tool list cannot be read yet", () => {
    const has = piToolNamesFrom({
      getAllTools: () => {
        throw new Error("Extension runtime not initialized");
      },
    });
    expect(has("anything")).toBe(true);
  });
});
