import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import type { Governor } from "pi-governor";
import { mcpPreset } from "../../../../presets/index.ts";

let agentDir: string;
let governor: Governor | undefined;
beforeEach(() => (agentDir = mkdtempSync(join(tmpdir(), "pigov-frompi-unit-"))));
afterEach(async () => {
  await governor?.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: agentDir, reason: "quit" });
  governor = undefined;
  rmSync(agentDir, { recursive: true, force: true });
});

const declared = [{ name: "echo", readOnly: true }];

describe("mcp.fromPi in a governor", () => {
  it("registers the handed-over server's tools, warns while pi runs it too, and /governor status lists both sides", async () => {
    writeFileSync(
      join(agentDir, "mcp.json"),
      JSON.stringify({ mcpServers: { shared: { command: "node", args: ["x.js"] }, pionly: { command: "y" }, off: { command: "z", enabled: false } } }),
    );
    governor = await createGovernor({
      preset: mcpPreset,
      cwd: agentDir,
      agentDir,
      env: {},
      layers: [
        {
          kind: "global",
          source: "test",
          data: { mcp: { fromPi: [{ name: "shared", tools: declared }], servers: { own: { command: "node", tools: declared } } } },
        },
      ],
    });
    expect([...governor.pipeline.tools.keys()]).toEqual(expect.arrayContaining(["own_echo", "shared_echo"]));
    expect(governor.degraded().join("\n")).toContain('MCP server "shared" runs twice: pi also runs it from');
    const status = governor.statusText();
    expect(status).toContain("MCP servers:\n  pi-governor runs: own, shared (from pi's mcp.json)");
    expect(status).toContain(`pi runs from ${join(agentDir, "mcp.json")}: shared (also pi-governor's: set "enabled": false there), pionly; off there: off`);
  });

  it("a project file cannot hand servers over (the key is trusted)", async () => {
    writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { shared: { command: "node" } } }));
    governor = await createGovernor({
      preset: mcpPreset,
      cwd: agentDir,
      agentDir,
      env: {},
      layers: [{ kind: "project", source: "project file", data: { mcp: { fromPi: ["shared"] } } }],
    });
    expect([...governor.pipeline.tools.keys()].some((t) => t.startsWith("shared_"))).toBe(false);
    expect(governor.problems().join("\n")).toContain("mcp.fromPi");
  });
});
