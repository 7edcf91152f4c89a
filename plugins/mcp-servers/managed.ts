/**
 * The reusable part: one ManagedMcpServer wired to the governor's services (clock, logger, restart
 * command) and closed on session shutdown. Presets that run a single named server (kota) use it
 * directly; the mcp-servers plugin uses it per configured server.
 */
import { announceServerProcess, type ManagedMcpServerConfig, ManagedMcpServer, formatServerStatus } from "../../lib/mcp/index.ts";
import type { GovernorServices, Pipeline } from "../../core/index.ts";

/**
 * Creates a managed server (nothing starts until first use) and closes it when the session shuts
 * down. `restartCommand` defaults to `/<services.commandRoot> restart`.
 */
export function manageServer(pipeline: Pipeline, owner: string, services: GovernorServices, config: ManagedMcpServerConfig): ManagedMcpServer {
  const server = new ManagedMcpServer(
    { restartCommand: `/${services.commandRoot} restart`, ...config },
    { clock: services.clock, logger: services.logger.child(`${owner}:${config.name}`) },
  );
  pipeline.hooks.sessionShutdown.tap({ name: owner }, () => server.close());
  // Its tools carry the `mcp:<name>` tag (tool-bridge.ts); fault injection finds the process by it.
  announceServerProcess(pipeline, `mcp:${config.name}`, { server: config.name, pid: () => server.status().pid });
  return server;
}

/** The status block of one server (state, uptime, reconnects, last error) for commands and tools. */
export function serverStatusText(server: ManagedMcpServer): string {
  return formatServerStatus(server.status());
}
