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
import { definePlugin } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { secretArgValues, secretEnvValues } from "../../lib/redact/index.ts";
import { REDACTOR } from "../redact/index.ts";
import type { ManagedMcpServer, McpTool } from "../../lib/mcp/index.ts";
import { mcpServersDefaults, mcpServersSchema, type McpServerOptions } from "./config.ts";
import { manageServer } from "./managed.ts";
import { type PiMcpJson, piMcpJsonPath, piServerStates, readHandedOver, readPiMcpJson } from "./pi-mcp-json.ts";
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
  description:
    "Runs configured MCP servers as managed connections (restart on crash or hang, degraded mode, clean shutdown) and offers their tools as governed <server>_<tool> tools.",
  schema: mcpServersSchema,
  defaults: mcpServersDefaults,
  trustedKeys: ["servers", "fromPi"],
  optional: [REDACTOR],
  async apply(pipeline, config, services) {
    const logger = services.logger;
    const servers: ManagedMcpServer[] = [];
    const piFile = readPiMcpJson(services.agentDir);
    const entries: Array<[string, McpServerOptions]> = Object.entries(config.servers);
    const fromPi = new Set<string>();
    for (const h of readHandedOver(piFile, config.fromPi, services.env)) {
      if (Object.hasOwn(config.servers, h.name)) {
        logger.warn(`MCP server "${h.name}" is both in mcp.servers and in mcp.fromPi; running the one in mcp.servers`, { server: h.name });
      } else if ("problem" in h) {
        logger.warn(`MCP server "${h.name}" (mcp.fromPi) is not run: ${h.problem}`, { server: h.name });
      } else {
        entries.push([h.name, h.options]);
        fromPi.add(h.name);
        if (h.enabledInPi)
          logger.warn(
            `MCP server "${h.name}" runs twice: pi also runs it from ${piMcpJsonPath(services.agentDir)}. Set "enabled": false on it there, so only pi-governor runs it`,
            { server: h.name },
          );
      }
    }
    // The env the user gives a server is where its tokens go: hide those values everywhere, from
    // every server's stderr and every tool result, before any server starts.
    const redactor = services.maybe(REDACTOR);
    for (const [, options] of entries) redactor?.addLiterals([...secretEnvValues(options.env), ...secretArgValues(options.args ?? [])]);
    const redact = redactor ? { redact: (text: string) => redactor.redact(text) } : {};
    const discovered = await Promise.all(
      entries.map(async ([name, options]) => {
        let server: ManagedMcpServer;
        try {
          server = manageServer(pipeline, MCP_SERVERS_PLUGIN, services, { ...serverConfig(name, options, services.cwd), ...redact });
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
    pipeline.registerStatusSection(MCP_SERVERS_PLUGIN, "MCP servers", () => mcpServerSides(servers, fromPi, piFile));
    for (const s of servers)
      s.subscribe((e) =>
        pipeline.emit({
          type: "custom",
          source: MCP_SERVERS_PLUGIN,
          name: `mcp_${e.type}`,
          data: e.type === "degraded" ? { server: e.server, attempts: e.attempts, category: e.error.category } : { ...e },
        }),
      );
    // The UI exists only once the session starts: show the footer then.
    pipeline.hooks.sessionStart.tap({ name: MCP_SERVERS_PLUGIN }, () => services.ui().setStatus("mcp", footerText(servers)));
  },
});

/** Which servers each side runs: pi-governor's (with those taken from pi marked) and pi's own mcp.json. */
function mcpServerSides(servers: readonly ManagedMcpServer[], fromPi: ReadonlySet<string>, piFile: PiMcpJson): string[] {
  const ours = servers.map((s) => (fromPi.has(s.name) ? `${s.name} (from pi's mcp.json)` : s.name));
  const lines = [`pi-governor runs: ${ours.length ? ours.join(", ") : "none"}`];
  if (!piFile) return [...lines, "pi's mcp.json: none"];
  if ("error" in piFile) return [...lines, `pi's mcp.json (${piFile.path}): unreadable, ${piFile.error}`];
  const states = piServerStates(piFile);
  const on = states.filter((s) => s.enabled).map((s) => (fromPi.has(s.name) ? `${s.name} (also pi-governor's: set "enabled": false there)` : s.name));
  const off = states.filter((s) => !s.enabled).map((s) => s.name);
  lines.push(`pi runs from ${piFile.path}: ${on.length ? on.join(", ") : "none"}${off.length ? `; off there: ${off.join(", ")}` : ""}`);
  return lines;
}

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
