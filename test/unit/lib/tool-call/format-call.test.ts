import { describe, expect, it } from "vitest";
import { formatCall } from "../../../../lib/tool-call/index.ts";

describe("formatCall", () => {
  it("writes tool(key=value, ...) with the preferred keys first, then the rest in call order", () => {
    expect(formatCall("kota_deps", { depth: 2, file_path: "src/a.ts", direction: "in" }, ["file_path", "direction"])).toBe(
      'kota_deps(file_path="src/a.ts", direction="in", depth=2)',
    );
    expect(formatCall("read", undefined)).toBe("read()");
    expect(formatCall("read", { path: "a", offset: undefined })).toBe('read(path="a")');
  });

  it("cuts long values with an ellipsis and shows at most maxArgs arguments, deterministically", () => {
    const call = formatCall("bash", { timeout: 5, command: "x".repeat(500) }, ["command"]);
    expect(call.startsWith('bash(command="xxx')).toBe(true);
    expect(call).toContain("…");
    expect(call.endsWith("timeout=5)")).toBe(true);
    expect(call.length).toBeLessThan(150);
    expect(formatCall("bash", { timeout: 5, command: "x".repeat(500) }, ["command"])).toBe(call);
    expect(formatCall("t", { a: 1, b: 2, c: 3 }, [], 2, 80)).toBe("t(a=1, b=2)");
    expect(formatCall("t", { a: { deep: "y".repeat(200) } }, [], 5, 20)).toBe(`t(a={"deep":"${"y".repeat(10)}…)`);
  });
});
