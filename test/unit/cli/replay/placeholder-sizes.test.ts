/**
 * A size property, not a timing: the placeholders the kota preset's pruning sends for pi's built-in
 * tools and the kota tools stay short at the median, on generated sessions as they come and with a
 * blob id on every result (the recall plugin stores every output, so every placeholder names one).
 */
import { describe, expect, it } from "vitest";
import { median, sentPlaceholders, withRecallBlobs } from "../../../../cli/replay/placeholder-sizes.ts";
import { governorPolicy } from "../../../../cli/replay/policies.ts";
import { generateSession } from "../../../../cli/replay/sample/generate.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";
import { kotaPrune } from "../../../../presets/kota/prune-policy.ts";

/** Median placeholder length the kota preset may send, in characters. */
const MEDIAN_BOUND = 110;
const TOOLS = new Set(["read", "bash", "grep", "find", "ls", "edit", "write", "kota_search", "kota_deps", "kota_usages", "kota_impact", "kota_task_context"]);

const sessionOf = (turns: number, coding: boolean) =>
  parseSession(
    generateSession({ turns, seed: 1000 + turns, coding, folds: coding })
      .map((l) => JSON.stringify(l))
      .join("\n"),
  ).requests;

describe("placeholder sizes", () => {
  for (const [turns, coding] of [
    [60, true],
    [40, false],
  ] as const) {
    it(`${turns}-turn ${coding ? "coding" : "read-mostly"} session: median placeholder at most ${MEDIAN_BOUND} chars, with and without a blob id on every result`, async () => {
      const requests = sessionOf(turns, coding);
      for (const stamped of [requests, withRecallBlobs(requests)]) {
        const sent = (await sentPlaceholders(stamped, governorPolicy({ plugin: () => kotaPrune() }))).filter((p) => TOOLS.has(p.toolName));
        expect(sent.length).toBeGreaterThan(20);
        expect(median(sent.map((p) => p.text.length))).toBeLessThanOrEqual(MEDIAN_BOUND);
        // The full style (normal mode: sizes in brackets) too, not only adaptive mode's short one.
        const full = sent.filter((p) => / chars[\],]/.test(p.text));
        expect(full.length).toBeGreaterThan(5);
        expect(median(full.map((p) => p.text.length))).toBeLessThanOrEqual(MEDIAN_BOUND);
      }
      // Every blob a placeholder names is named by a prefix blob_read resolves (12 hex digits).
      const withBlobs = await sentPlaceholders(withRecallBlobs(requests), governorPolicy({ plugin: () => kotaPrune() }));
      const named = withBlobs.flatMap((p) => [...p.text.matchAll(/blob_read\(\{"blobId":"([^"]*)"\}\)/g)].map((m) => m[1]!));
      expect(named.length).toBeGreaterThan(10);
      // (The generator names some blobs with short made-up ids; the sha256 ids recall gives show 12 digits.)
      for (const id of named.filter((i) => i.length >= 12)) expect(id).toMatch(/^[0-9a-f]{12}$/);
    }, 120_000);
  }

  it("median of nothing is 0; of an even count, the lower middle", () => {
    expect(median([])).toBe(0);
    expect(median([5, 1, 9, 3])).toBe(3);
  });
});
