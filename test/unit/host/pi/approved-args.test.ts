/**
 * The arguments a person approved are held as shown: frozen to any depth (a later change throws in
 * strict code), and a change made before the freeze refuses the call.
 */
import { describe, expect, it } from "vitest";
import { holdApproved } from "../../../../host/pi/approved-args.ts";

describe("holdApproved", () => {
  it("freezes the arguments to any depth; what matches the approval runs", () => {
    const input = { path: "f.txt", edits: [{ oldText: "a", newText: "b" }] };
    expect(holdApproved("edit", input, JSON.stringify(input))).toBeUndefined();
    expect(() => {
      input.path = "other.txt";
    }).toThrow(TypeError);
    expect(() => {
      input.edits[0]!.newText = "NOT_APPROVED";
    }).toThrow(TypeError);
    expect(() => input.edits.push({ oldText: "c", newText: "d" })).toThrow(TypeError);
    expect(JSON.stringify(input)).toBe('{"path":"f.txt","edits":[{"oldText":"a","newText":"b"}]}');
  });

  it("refuses arguments that no longer match what was approved", () => {
    const approved = JSON.stringify({ command: "echo approved" });
    expect(holdApproved("bash", { command: "touch NOT_APPROVED" }, approved)).toMatch(/changed after the user approved them/);
  });

  it("refuses arguments with a getter (one answer when shown, another when run)", () => {
    let reads = 0;
    const input = {};
    Object.defineProperty(input, "command", { enumerable: true, get: () => (reads++ < 1 ? "echo approved" : "touch NOT_APPROVED") });
    expect(holdApproved("bash", input, JSON.stringify({ command: "echo approved" }))).toMatch(/not plain data/);
  });
});
