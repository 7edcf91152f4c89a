/** plugins/mcp-servers tool bridge: names, parameters pi accepts, content conversion, declared tools, footer. */
import { validateToolArguments } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { ManagedMcpServer } from "../../../../lib/mcp/index.ts";
import { footerText, governedToolName, toContent, toParameters } from "../../../../plugins/mcp-servers/index.ts";
import { declaredTool } from "../../../../plugins/mcp-servers/tool-bridge.ts";

describe("tool bridge", () => {
  it("names tools <server>_<tool> with characters pi rejects replaced", () => {
    expect(governedToolName("everything", "get-sum")).toBe("everything_get-sum");
    expect(governedToolName("fs", "read.file/v2")).toBe("fs_read_file_v2");
  });

  it("passes an MCP input schema through as parameters pi validates (dialect marker dropped, always an object)", () => {
    const params = toParameters({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { n: { type: "integer", minimum: 1 } },
      required: ["n"],
    });
    expect(params).not.toHaveProperty("$schema");
    const tool = { name: "t", description: "", parameters: params } as never;
    expect(validateToolArguments(tool, { type: "toolCall", id: "1", name: "t", arguments: { n: 2 } } as never)).toEqual({ n: 2 });
    expect(() => validateToolArguments(tool, { type: "toolCall", id: "1", name: "t", arguments: { n: 0 } } as never)).toThrow(/Validation failed/);
    expect(toParameters(undefined)).toEqual({ type: "object", properties: {} });
  });

  it("converts MCP content: text and images pass, resources and links become short text", () => {
    const content = toContent({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "A" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
    } as never);
    expect(content).toEqual([
      { type: "text", text: "hello" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "text", text: "[resource file:///a.txt]\nA" },
      { type: "text", text: "[resource file:///b.bin (application/octet-stream): binary, not shown]" },
      { type: "text", text: '[resource link file:///c "c"]' },
    ]);
    expect(toContent({ content: [], structuredContent: { a: 1 } } as never)).toEqual([{ type: "text", text: '{\n  "a": 1\n}' }]);
  });

  it("declared tools carry their replay annotations", () => {
    expect(declaredTool("read_graph")).toEqual({ name: "read_graph", inputSchema: { type: "object" } });
    expect(declaredTool({ name: "search", readOnly: true }).annotations).toEqual({ readOnlyHint: true });
  });

  it("the footer counts usable servers and names troubled ones", () => {
    const a = new ManagedMcpServer({ name: "a", command: "x" });
    expect(footerText([a])).toBe("mcp 1/1 ok");
    expect(footerText([])).toBeUndefined();
  });
});
