import { describe, expect, it } from "vitest";
import { readMeta, withMeta } from "../../../../core/result-meta.ts";
import { boundDetails } from "../../../../plugins/blobs/details.ts";

describe("boundDetails", () => {
  it("drops the tool's largest keys but never the stages' result meta", () => {
    const details = withMeta(
      { structuredContent: "x".repeat(5_000), source: "test" },
      {
        call: { status: "ERROR", durationMs: 5, retries: 2 },
        retry: { retries: 2, stoppedBy: "max_attempts" },
        circuit: { key: "kota", state: "open", retryInMs: 1_000 },
        timeout: { limitMs: 300_000, scope: "total" },
        pinned: true,
      },
    );
    const out = boundDetails(details, 64)!;
    expect(out.droppedDetails).toEqual(["structuredContent", "source"]);
    expect(readMeta(out)).toEqual(readMeta(details));
  });

  it("returns small details unchanged", () => {
    const details = { source: "test" };
    expect(boundDetails(details, 2_048)).toBe(details);
  });
});
