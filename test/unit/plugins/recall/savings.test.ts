import { describe, expect, it } from "vitest";
import { savingsLines, SavingsTracker, statusText } from "../../../../plugins/recall/savings.ts";

const result = (id: string, tool: string, text: string, details?: Record<string, unknown>) =>
  ({ role: "toolResult", toolCallId: id, toolName: tool, content: [{ type: "text", text }], details, isError: false }) as never;

describe("recall savings", () => {
  it("counts what blobs cut and prune replaced, per tool, and the turn", () => {
    const placeholder = '(Pruned) read(path="x") [10,000 chars] blob_read(...)';
    const t = new SavingsTracker();
    t.remember("r1", 10_000); // a read that prune later replaced
    t.remember("r2", 300); // a small result still whole
    const report = t.measure([
      { role: "user", content: "a", timestamp: 1 } as never,
      result("r1", "read", placeholder),
      result("r2", "bash", "x".repeat(300)),
      { role: "user", content: "b", timestamp: 2 } as never,
      result("k1", "kota_search", "e".repeat(6_000), { truncated: true, originalBytes: 40_000, excerptBytes: 6_000 }),
    ]);
    expect(report.turn).toBe(2);
    expect(report.perTool.get("kota_search")).toEqual({ results: 1, keptOutChars: 34_000 });
    expect(report.perTool.get("read")!.keptOutChars).toBe(10_000 - placeholder.length);
    expect(report.perTool.has("bash")).toBe(false);
    expect(report.keptOutChars).toBe(34_000 + 10_000 - placeholder.length);
    expect(statusText(report, 3)).toBe(`recall: ~${Math.ceil(report.keptOutChars / 4).toLocaleString("en-US")} tokens kept out, 3 outputs searchable`);
    expect(savingsLines(report)[1]).toMatch(/^ {2}kota_search: 1 result\(s\), ~8,500 tokens$/);
  });
});

describe("recall answer format", () => {
  it("stays within the byte budget whatever the hits and query, and says how many were left out", async () => {
    const { formatHits } = await import("../../../../plugins/recall/format.ts");
    const hit = (i: number) => ({
      outputId: i,
      sessionId: "s",
      project: "/p",
      tool: "read",
      args: `read(path="${"dir/".repeat(18)}f${i}.ts")`,
      turn: i,
      atMs: 0,
      toolCallId: `c${i}`,
      blobId: "a".repeat(64),
      bytes: 10,
      lines: 400,
      isError: false,
      firstLine: 41,
      lastLine: 80,
      snippet: `…${"ü".repeat(300)} «match» ${"x".repeat(300)}`,
      rank: -i,
    });
    for (const n of [1, 2, 5, 13, 50]) {
      const text = formatHits(
        "q".repeat(5_000),
        Array.from({ length: n }, (_, i) => hit(i)),
        { nowMs: 90_000, maxBytes: 2_048, relaxed: false, scope: "session" },
      );
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2_048);
      const shown = (text.match(/^\d+\. /gm) ?? []).length;
      if (shown < n) expect(text).toContain(`[${n - shown} more not shown`);
      expect(text).toContain('blob_read({"blobId":"' + "a".repeat(12) + '","offset":41,"limit":40})');
    }
  });
});
