/**
 * Turns a managed server's MCP tools into governed pipeline tools named `<server>_<tool>`: the input
 * schema passes through (pi validates plain JSON Schema), annotations are carried (the retry and
 * replay policies read them), results become pi content, and `isError` results become errors.
 */
import { classifyError, type ContentBlock, type GovernedToolDefinition, type Pipeline } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { MCP_TAG, mcpServerTag } from "../../lib/tags/index.ts";
import type { ManagedMcpServer, McpTool, McpToolResult } from "../../lib/mcp/index.ts";
import type { TSchema } from "typebox";
import type { DeclaredTool } from "./config.ts";

/** `<server>_<tool>`, with characters pi does not allow in tool names replaced by `_`. */
export function governedToolName(server: string, tool: string): string {
  return `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/**
 * An MCP input schema as pi tool parameters: a copy that is always an object schema, without the
 * `$schema` dialect marker (TypeBox's compiler, which pi validates with, does not need it).
 */
export function toParameters(inputSchema: Record<string, unknown> | undefined): TSchema {
  const { $schema: _dialect, ...rest } = (inputSchema ?? {}) as Record<string, unknown>;
  return { ...rest, type: "object", properties: (rest.properties as Record<string, unknown> | undefined) ?? {} } as unknown as TSchema;
}

/** A declared tool (config) as the McpTool shape. */
export function declaredTool(d: DeclaredTool): McpTool {
  if (typeof d === "string") return { name: d, inputSchema: { type: "object" } };
  return {
    name: d.name,
    ...(d.description ? { description: d.description } : {}),
    inputSchema: (d.inputSchema ?? { type: "object" }) as McpTool["inputSchema"],
    annotations: { ...(d.readOnly !== undefined ? { readOnlyHint: d.readOnly } : {}), ...(d.idempotent !== undefined ? { idempotentHint: d.idempotent } : {}) },
  };
}

/** MCP content as pi content: text and images pass; resources, links and audio become short text. */
export function toContent(result: McpToolResult): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") out.push({ type: "text", text: block.text });
    else if (block.type === "image") out.push({ type: "image", data: block.data, mimeType: block.mimeType });
    else if (block.type === "resource") {
      const r = block.resource as { uri: string; text?: string; mimeType?: string };
      out.push({
        type: "text",
        text: r.text !== undefined ? `[resource ${r.uri}]\n${r.text}` : `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}: binary, not shown]`,
      });
    } else if (block.type === "resource_link") out.push({ type: "text", text: `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ""}]` });
    else out.push({ type: "text", text: `[${block.type} content not shown]` });
  }
  if (out.length === 0 && result.structuredContent) out.push({ type: "text", text: JSON.stringify(result.structuredContent, null, 2) });
  return out;
}

/** The governed tool definition for one MCP tool of `server`. */
export function mcpToolDefinition(server: ManagedMcpServer, tool: McpTool, tags: string[] = []): GovernedToolDefinition {
  const name = governedToolName(server.name, tool.name);
  const annotations = {
    ...(tool.annotations?.readOnlyHint !== undefined ? { readOnlyHint: tool.annotations.readOnlyHint } : {}),
    ...(tool.annotations?.idempotentHint !== undefined ? { idempotentHint: tool.annotations.idempotentHint } : {}),
    ...(typeof tool.annotations?.destructiveHint === "boolean" ? { destructiveHint: tool.annotations.destructiveHint } : {}),
    ...(typeof tool.annotations?.openWorldHint === "boolean" ? { openWorldHint: tool.annotations.openWorldHint } : {}),
  };
  return {
    name,
    label: tool.title ?? name,
    description: tool.description ?? `${tool.name} (MCP server ${server.name})`,
    parameters: toParameters(tool.inputSchema as Record<string, unknown>),
    annotations,
    tags: [MCP_TAG, mcpServerTag(server.name), ...tags],
    mcp: { server: server.name, tool: tool.name },
    async execute(call) {
      const result = await server.callTool(tool.name, call.args as Record<string, unknown>, { signal: call.signal });
      if (result.isError) throw classifyError({ isError: true, content: result.content }, { subject: name });
      // What a reconnect lost is told once, in front of the next answer.
      const notice = server.takeNotice();
      const content = toContent(result);
      return {
        content: notice ? [{ type: "text", text: notice }, ...content] : content,
        details: { server: server.name, tool: tool.name, ...(notice ? { recoveryNotice: notice } : {}) },
      };
    },
  };
}

/**
 * Registers each tool of `server` on the pipeline. One tool that cannot be registered (its name is
 * taken by another plugin's tool, or too long) is reported in `failed` and the others still are.
 */
export function registerMcpTools(
  pipeline: Pipeline,
  owner: string,
  server: ManagedMcpServer,
  tools: readonly McpTool[],
  tags: string[] = [],
): { names: string[]; failed: Array<{ tool: string; error: string }> } {
  const names: string[] = [];
  const failed: Array<{ tool: string; error: string }> = [];
  for (const tool of tools) {
    const def = mcpToolDefinition(server, tool, tags);
    try {
      if (def.name.length > 64) throw new Error(`"${def.name.slice(0, 80)}" is longer than 64 characters`);
      pipeline.registerTool(owner, def);
      names.push(def.name);
    } catch (error) {
      failed.push({ tool: tool.name, error: errorText(error) });
    }
  }
  return { names, failed };
}
