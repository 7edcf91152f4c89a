import { describe, expect, it } from "vitest";
import { CallLimits } from "../../../../plugins/policies/limits.ts";

describe("CallLimits", () => {
  it("refuses the call over a per-turn limit, counts only admitted calls, and starts over each turn", () => {
    const limits = new CallLimits([{ tools: "read", perTurn: 2, onExceed: "refuse" }]);
    expect(limits.admit("read")).toBeUndefined();
    expect(limits.admit("bash")).toBeUndefined(); // another tool: not counted by this limit
    expect(limits.admit("read")).toBeUndefined();
    const breach = limits.admit("read");
    expect(breach?.stop).toBe(false);
    expect(breach?.reason).toContain("Refused: this turn reached its limit of 2 calls of read (policies.limits[0]: perTurn 2)");
    limits.startTurn();
    expect(limits.admit("read")).toBeUndefined();
  });

  it("counts a run across turns, and a stop limit refuses every later call of the run until the next one", () => {
    const limits = new CallLimits([
      { tools: "*", perRun: 3, onExceed: "stop" },
      { tools: "kota_*", perTurn: 1, onExceed: "refuse" },
    ]);
    expect(limits.admit("kota_search")).toBeUndefined();
    expect(limits.admit("kota_deps")?.reason).toContain("policies.limits[1]"); // refused, and not counted by limit 0
    limits.startTurn();
    expect(limits.admit("read")).toBeUndefined();
    expect(limits.admit("read")).toBeUndefined();
    const stop = limits.admit("read");
    expect(stop).toMatchObject({ stop: true });
    expect(stop!.reason).toContain("Stopped: this run reached its limit of 3 tool calls");
    limits.startTurn();
    expect(limits.admit("bash")).toBe(stop); // still stopped in this run
    limits.startRun();
    expect(limits.admit("bash")).toBeUndefined();
  });
});
