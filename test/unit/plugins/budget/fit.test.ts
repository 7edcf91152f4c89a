import { describe, expect, it } from "vitest";
import { largestFittingCount, MAX_FIT_REQUESTS } from "../../../../plugins/budget/fit.ts";
import { downshiftNote, NOTE_MAX_CHARS } from "../../../../plugins/budget/note.ts";

/** A probe over answers of `header + perResult * count` bytes, recording the counts asked for. */
function linear(header: number, perResult: number, target: number) {
  const asked: number[] = [];
  const probe = async (n: number) => {
    asked.push(n);
    const bytes = header + perResult * n;
    return { bytes, fits: bytes <= target };
  };
  return { asked, probe, size: (n: number) => header + perResult * n };
}

describe("largestFittingCount", () => {
  it("finds the largest count that fits for answers that grow with their result count, in at most 4 requests", async () => {
    for (const [header, per, over, target] of [
      [158, 577, 10, 4_600],
      [60, 580, 10, 4_600],
      [30, 25, 50, 300],
      [500, 2_000, 20, 4_600],
      [0, 100, 3, 150],
    ] as const) {
      const { asked, probe, size } = linear(header, per, target);
      const found = await largestFittingCount(over, size(over), target, probe);
      const truth = Math.floor((target - header) / per);
      expect(found, `${header}+${per}n`).toBe(truth >= 1 ? Math.min(truth, over - 1) : undefined);
      expect(asked.length).toBeLessThanOrEqual(MAX_FIT_REQUESTS);
    }
  });

  it("stops at a failed request and never asks for 0 or for the count that did not fit", async () => {
    const asked: number[] = [];
    expect(await largestFittingCount(10, 6_000, 4_600, async (n) => (asked.push(n), undefined))).toBeUndefined();
    expect(asked).toEqual([7]);
    const none = linear(5_000, 1, 4_600);
    expect(await largestFittingCount(10, none.size(10), 4_600, none.probe)).toBeUndefined();
    expect(none.asked.every((n) => n >= 1 && n < 10)).toBe(true);
    expect(await largestFittingCount(1, 9_999, 4_600, none.probe)).toBeUndefined();
  });
});

describe("downshiftNote", () => {
  it("keeps its first line under 150 characters, whatever the tool name and the arguments", () => {
    const changes = Array.from({ length: 30 }, (_, i) => `argument_${i}=${i}`).join(", ");
    for (const toolName of ["kota_search", "t".repeat(64)]) {
      const note = downshiftNote({
        toolName,
        maxBytes: 16_777_216,
        firstBytes: 999_999_999,
        shownChange: changes,
        shownBytes: 16_000_000,
        fitted: true,
        hint: undefined,
        stored: { id: "a".repeat(64), bytes: 999_999_999 },
      });
      const [first, pointer] = note.split("\n");
      expect(first!.length).toBeLessThanOrEqual(NOTE_MAX_CHARS);
      expect(first).toMatch(/\(16,000,000 bytes\)\]$/);
      expect(pointer).toMatch(/^\[blob: 999,999,999 bytes stored; blob_read\(\{"blobId":"aaaaaaaaaaaa"\}\)/);
    }
  });
});
