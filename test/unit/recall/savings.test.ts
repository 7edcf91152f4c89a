import { describe, expect, it } from "vitest";
import { savingsLines, SavingsTracker, statusText } from "../../../plugins/recall/savings.ts";

const result = (id: string, tool: string, text: string, details?: Record<string, unknown>) => ({ role: "toolResult", toolCallId: id, toolName: tool, content: [{ type: "text", text }], details, isError: false }) as never;

describe("recall savings", () => {
  it("counts what blobs cut and prune replaced, per tool, and the turn", () => {
    const placeholder = "(Pruned) read(path=\"x\") [10,000 chars]. Full output stored: blob_read(...)";
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
