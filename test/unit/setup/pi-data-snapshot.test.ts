import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { changedPiData, piDataRoots, snapshotPiData } from "../../setup/pi-data-snapshot.ts";

const home = mkdtempSync(join(tmpdir(), "gov-pi-data-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("the real-home guard's snapshot of pi-governor's data", () => {
  it("watches <agentDir>/pi-governor* and ~/.pi/cache/pi-governor, and nothing else of pi's", () => {
    const agent = join(home, ".pi", "agent");
    mkdirSync(join(agent, "pi-governor"), { recursive: true });
    mkdirSync(join(agent, "sessions"), { recursive: true });
    writeFileSync(join(agent, "pi-governor.json"), "{}");
    expect(piDataRoots(home).sort()).toEqual(
      [join(agent, "cache", "pi-governor"), join(agent, "pi-governor"), join(agent, "pi-governor.json"), join(home, ".pi", "cache", "pi-governor")].sort(),
    );
  });

  it("reports what was created, modified and removed, by path", () => {
    const cache = join(home, ".pi", "cache", "pi-governor");
    mkdirSync(join(cache, "blobs"), { recursive: true });
    writeFileSync(join(cache, "blobs", "kept.txt"), "a");
    writeFileSync(join(cache, "blobs", "gone.txt"), "b");
    writeFileSync(join(cache, "blobs", "edited.txt"), "c");
    utimesSync(join(cache, "blobs", "edited.txt"), 1, 1);
    const roots = piDataRoots(home);
    const before = snapshotPiData(roots);
    expect(changedPiData(before, snapshotPiData(roots))).toEqual([]);

    rmSync(join(cache, "blobs", "gone.txt"));
    writeFileSync(join(cache, "blobs", "edited.txt"), "cc");
    mkdirSync(join(cache, "recall"));
    writeFileSync(join(cache, "recall", "index.db"), "x");
    const changes = changedPiData(before, snapshotPiData(roots));
    expect(changes).toEqual(
      expect.arrayContaining([
        `created  ${join(cache, "recall")}`,
        `created  ${join(cache, "recall", "index.db")}`,
        `modified ${join(cache, "blobs", "edited.txt")}`,
        `removed  ${join(cache, "blobs", "gone.txt")}`,
      ]),
    );
    expect(changes.some((c) => c.endsWith("kept.txt"))).toBe(false);
  });

  it("lists a planted link without following it", () => {
    const outside = mkdtempSync(join(tmpdir(), "gov-pi-data-outside-"));
    try {
      writeFileSync(join(outside, "big"), "x");
      const root = join(home, "linked");
      mkdirSync(root);
      symlinkSync(outside, join(root, "out"));
      const snapshot = snapshotPiData([root]);
      expect(snapshot.get(join(root, "out"))).toMatch(/^link /);
      expect(snapshot.has(join(root, "out", "big"))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("runs under a throwaway HOME (test/setup/hermetic-home.ts)", () => {
    expect(homedir()).toBe(process.env.HOME);
    expect(process.env.HOME).toMatch(/pi-governor-home-/);
    expect(process.env.PI_CODING_AGENT_DIR).toBe(join(homedir(), ".pi", "agent"));
  });
});
