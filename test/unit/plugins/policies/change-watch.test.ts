import { describe, expect, it } from "vitest";
import { ChangeWatch } from "../../../../plugins/policies/change-watch.ts";

describe("ChangeWatch", () => {
  it("is quiet only while no change runs and none started or ended since the mark", () => {
    const w = new ChangeWatch();
    const m = w.mark();
    expect(w.quietSince(m)).toBe(true);
    w.started("a", false);
    expect(w.mark()).toBeUndefined();
    expect(w.quietSince(m)).toBe(false);
    expect(w.ended("a")).toBe(true);
    expect(w.quietSince(m)).toBe(false);
    expect(w.quietSince(w.mark())).toBe(true);
    expect(w.quietSince(undefined)).toBe(false);
  });

  it("ignores the end of a call it never saw start, and counts a reused id once per start", () => {
    const w = new ChangeWatch();
    expect(w.ended("read-1")).toBe(false);
    w.started("dup", false);
    w.started("dup", false);
    expect(w.ended("dup")).toBe(true);
    expect(w.busy).toBe(true); // the other call with the same id still runs
    expect(w.ended("dup")).toBe(true);
    expect(w.busy).toBe(false);
    expect(w.ended("dup")).toBe(false);
  });

  it("a change whose work may outlast it (bash, a server's tool) keeps the rest of the run from remembering", () => {
    const w = new ChangeWatch();
    w.startRun();
    w.started("bash-1");
    w.ended("bash-1");
    expect(w.mark()).toBeUndefined();
    w.startRun();
    expect(w.mark()).toBeDefined();
  });

  it("a change outside the calls (a user's ! command) keeps this run and the next one from remembering", () => {
    const w = new ChangeWatch();
    w.startRun();
    w.outsideChange();
    expect(w.mark()).toBeUndefined();
    w.startRun();
    expect(w.mark()).toBeUndefined();
    w.startRun();
    expect(w.mark()).toBeDefined();
  });

  it("once the user's commands run unseen (another extension handles them), it never remembers again this session", () => {
    const w = new ChangeWatch();
    w.startRun();
    const mark = w.mark();
    w.unseenChanges();
    expect(w.quietSince(mark)).toBe(false);
    for (let run = 0; run < 5; run++) {
      w.startRun();
      expect(w.mark()).toBeUndefined();
    }
  });

  it("fails safe when ends never come: past 4096 running changes it never remembers again", () => {
    const w = new ChangeWatch();
    for (let i = 0; i < 4_097; i++) w.started(`c${i}`);
    for (let i = 0; i < 4_097; i++) w.ended(`c${i}`);
    expect(w.mark()).toBeUndefined();
  });
});
