/**
 * `governor:mcp-servers` (config key `mcp`): runs the MCP servers listed in `mcp.servers` as managed
 * connections (lib/mcp ManagedMcpServer: lazy start, heartbeat, reconnect, degraded mode, clean
 * shutdown) and offers each server's tools as governed tools named `<server>_<tool>` (tags `mcp`).
 *
 * Tool discovery: pi needs the tool list when the extension loads. A server whose config lists
 * `tools` is not started at load (its start stays lazy); any other server is started at load to
 * discover its tools, bounded by its `connectTimeoutMs` (servers start in parallel). A server that
 * fails to start there contributes no tools this session, but its status, the error and
 * `/<root> restart` still work, and the other servers are unaffected.
 *
 * Which tools are offered (tool-selection.ts): at most `maxTools` tools and `maxSchemaBytes` of
 * schemas per server, and a `<server>_<tool>` name two tools would share is offered for neither;
 * each case gives one warning at load naming the server(s) and counts.
 *
 * Also: the `governor_connection_status` tool (ungoverned), `/<root> servers`, `/<root> restart [name]`,
 * a footer entry, and everything closed on session shutdown (SIGTERM, then SIGKILL after 2 s).
 */
import { definePlugin, errorText } from "../../core/index.ts";
import type { ManagedMcpServer, McpTool } from "../../lib/mcp/index.ts";
import { mcpServersDefaults, mcpServersSchema, type McpServerOptions } from "./config.ts";
import { manageServer } from "./managed.ts";
import { footerText, registerServerCommands, registerStatusTool, trackFooter } from "./status.ts";
import { declaredTool, registerMcpTools } from "./tool-bridge.ts";
import { DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_TOOLS, selectTools } from "./tool-selection.ts";

export { manageServer, serverStatusText } from "./managed.ts";
export { registerServerCommands, registerStatusTool, serversStatusText, footerText, trackFooter, STATUS_TOOL } from "./status.ts";
export { mcpToolDefinition, registerMcpTools, governedToolName, toParameters, toContent } from "./tool-bridge.ts";
export { mcpServersSchema, mcpServersDefaults, type McpServersOptions, type McpServerOptions } from "./config.ts";
export { selectTools, schemaBytes, DEFAULT_MAX_TOOLS, DEFAULT_MAX_SCHEMA_BYTES, type ToolSelection } from "./tool-selection.ts";

/** Plugin name, as taps, logs and errors show it. */
export const MCP_SERVERS_PLUGIN = "governor:mcp-servers";

/** The plugin factory: `mcpServers()` or `mcpServers({ servers: { ... } })`. */
export const mcpServers = definePlugin({
  name: MCP_SERVERS_PLUGIN,
  configKey: "mcp",
  description: "Runs configured MCP servers as managed connections (restart on crash or hang, degraded mode, clean shutdown) and offers their tools as governed <server>_<tool> tools.",
  schema: mcpServersSchema,
  defaults: mcpServersDefaults,
  trustedKeys: ["servers"],
  async apply(pipeline, config, services) {
    const logger = services.logger;
    const servers: ManagedMcpServer[] = [];
    const entries = Object.entries(config.servers);
    const discovered = await Promise.all(
      entries.map(async ([name, options]) => {
        let server: ManagedMcpServer;
        try {
          server = manageServer(pipeline, MCP_SERVERS_PLUGIN, services, serverConfig(name, options, services.cwd));
        } catch (error) {
          logger.error(`MCP server "${name}" is misconfigured: ${errorText(error)}`, { server: name });
          return undefined;
        }
        servers.push(server);
        const limits = { maxTools: options.maxTools ?? DEFAULT_MAX_TOOLS, maxSchemaBytes: options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES };
        if (options.tools) return { server, tools: options.tools.map(declaredTool), ...limits };
        try {
          return { server, tools: await server.listTools(), ...limits };
        } catch (error) {
          logger.warn(`MCP server "${name}" did not start at load, so its tools are not offered this session: ${errorText(error)}`, { server: name });
          return { server, tools: [] as McpTool[], ...limits };
        }
      }),
    );
    const found = discovered.filter((d) => d !== undefined);
    const selection = selectTools(found.map((d) => ({ server: d.server.name, tools: d.tools, maxTools: d.maxTools, maxSchemaBytes: d.maxSchemaBytes })));
    for (const warning of selection.warnings) logger.warn(warning);
    for (const { server } of found) {
      const failures = registerMcpTools(pipeline, MCP_SERVERS_PLUGIN, server, selection.offered.get(server.name) ?? []).failed;
      for (const f of failures) logger.error(`MCP server "${server.name}": tool "${f.tool}" not offered: ${f.error}`, { server: server.name });
    }
    // No servers, no status tool: it would only take room in the model's tool list.
    if (servers.length) registerStatusTool(pipeline, MCP_SERVERS_PLUGIN, servers);
    registerServerCommands(pipeline, MCP_SERVERS_PLUGIN, services.commandRoot, servers);
    trackFooter(servers, services);
    for (const s of servers) s.subscribe((e) => pipeline.emit({ type: "custom", source: MCP_SERVERS_PLUGIN, name: `mcp_${e.type}`, data: e.type === "degraded" ? { server: e.server, attempts: e.attempts, category: e.error.category } : { ...e } }));
    // The UI exists only once the session starts: show the footer then.
    pipeline.hooks.sessionStart.tap({ name: MCP_SERVERS_PLUGIN }, () => services.ui().setStatus("mcp", footerText(servers)));
  },
});

function serverConfig(name: string, o: McpServerOptions, cwd: string) {
  return {
    name,
    command: o.command,
    args: o.args ?? [],
    cwd: o.cwd ?? cwd,
    env: o.env ?? {},
    ...(o.installHint ? { installHint: o.installHint } : {}),
    ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
    ...(o.maxReconnectAttempts !== undefined ? { maxReconnectAttempts: o.maxReconnectAttempts } : {}),
    ...(o.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: o.heartbeatIntervalMs } : {}),
    ...(o.heartbeatTimeoutMs !== undefined ? { heartbeatTimeoutMs: o.heartbeatTimeoutMs } : {}),
    ...(o.maxAnswerBytes !== undefined ? { maxAnswerBytes: o.maxAnswerBytes } : {}),
    answerLimitKey: `mcp.servers.${name}.maxAnswerBytes`,
    ...(o.degradedCooldownMs !== undefined ? { degradedCooldownMs: o.degradedCooldownMs } : {}),
    ...(o.queueDeadlineMs !== undefined ? { queueDeadlineMs: o.queueDeadlineMs } : {}),
    ...(o.replayTools ? { replayTools: o.replayTools } : {}),
  };
}
