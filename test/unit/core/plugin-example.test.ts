import { describe, expect, it } from "vitest";
import { contentText, definePreset, textContent } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { redactSecrets } from "../../../docs/examples/redact-secrets-plugin.ts";
import { toolsPlugin } from "pi-governor/testing";

/** The example from docs/plugins.md, loaded the way a team would: in a preset, configured from a file layer. */
describe("docs/examples/redact-secrets-plugin.ts", () => {
  async function build(config: Record<string, unknown>) {
    const tools = toolsPlugin(
      [
        { name: "cat_env", execute: async () => ({ content: textContent("key=AKIAABCDEFGHIJKLMNOP ok") }) },
        { name: "drop_db", execute: async () => ({ content: textContent("dropped") }) },
      ],
      { configKey: "tools", description: "two tools for the example" },
    );
    const preset = definePreset({ name: "team", description: "", plugins: () => [redactSecrets(), tools()] });
    return createGovernor({ preset, cwd: "/", agentDir: "/nonexistent", env: {}, layers: [{ kind: "global", source: "G", data: config }] });
  }

  it("redacts secrets from tool results and refuses denied tools", async () => {
    const gov = await build({ redactSecrets: { denyTools: ["drop_db"] } });
    expect(gov.problems()).toEqual([]);
    const obs = await gov.pipeline.callTool("cat_env", {});
    const shaped = await gov.pipeline.hooks.toolResult.run(
      { toolName: "cat_env", toolCallId: "1", input: {}, content: obs.content, details: {}, isError: false },
      { tool: gov.pipeline.tools.get("cat_env")!.info, sessionId: "" },
    );
    expect(contentText(shaped.content)).toBe("key=[redacted] ok");
    const denied = await gov.pipeline.callTool("drop_db", {});
    expect(denied.status).toBe("ERROR");
    expect(contentText(denied.content)).toMatch(/disabled by team policy/);
    expect([...gov.pipeline.commands.keys()]).toContain("governor redactions");
  });

  it("is switched off with enabled:false", async () => {
    const gov = await build({ redactSecrets: { enabled: false } });
    expect((await gov.pipeline.callTool("drop_db", {})).status).toBe("SUCCESS");
  });
});
