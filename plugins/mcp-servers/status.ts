/**
 * How users and the model see managed servers: the `governor_connection_status` tool (ungoverned, so
 * it answers when everything else is down), the `/<root> servers` and `/<root> restart [name]`
 * commands, and a footer entry.
 */
import { errorText } from "../../core/errors.ts";
import type { GovernorServices, Pipeline } from "../../core/index.ts";
import { MCP_TAG, STATUS_TAG } from "../../lib/tags/index.ts";
import { formatServerStatus, type ManagedMcpServer } from "../../lib/mcp/index.ts";
import type { TSchema } from "typebox";

/** Name of the status tool. */
export const STATUS_TOOL = "governor_connection_status";

/** Status text of `servers` (all, or the one named). */
export function serversStatusText(servers: readonly ManagedMcpServer[], only?: string): string {
  const picked = only ? servers.filter((s) => s.name === only) : servers;
  if (picked.length === 0)
    return only ? `No MCP server named "${only}". Known: ${servers.map((s) => s.name).join(", ") || "none"}.` : "No MCP servers are configured.";
  return picked.map((s) => formatServerStatus(s.status())).join("\n");
}

/** One footer line: "mcp 2/3 up, memory: degraded" (undefined when there are no servers). */
export function footerText(servers: readonly ManagedMcpServer[]): string | undefined {
  if (servers.length === 0) return undefined;
  const usable = servers.filter((s) => s.state === "running" || s.state === "stopped").length;
  const troubled = servers.filter((s) => s.state !== "running" && s.state !== "stopped" && s.state !== "closed");
  return `mcp ${usable}/${servers.length} ok${troubled.length ? `, ${troubled.map((s) => `${s.name}: ${s.state}`).join(", ")}` : ""}`;
}

/** Keeps the footer entry `key` current while any server changes state. */
export function trackFooter(servers: readonly ManagedMcpServer[], services: GovernorServices, key = "mcp"): void {
  const update = () => services.ui().setStatus(key, footerText(servers));
  for (const s of servers) s.subscribe((e) => e.type === "state" && update());
}

/** Registers the status tool for `servers` (skipped when another plugin already has one). */
export function registerStatusTool(pipeline: Pipeline, owner: string, servers: readonly ManagedMcpServer[]): void {
  pipeline.registerTool(owner, {
    name: STATUS_TOOL,
    label: "MCP connection status",
    description:
      "State of the MCP server connections: running, reconnecting, degraded; uptime, reconnect history and the last error. Call it when an MCP tool reports a lost connection, before calling that tool again.",
    parameters: { type: "object", properties: { server: { type: "string", description: "Only this server (default: all)." } } } as unknown as TSchema,
    annotations: { readOnlyHint: true },
    tags: [STATUS_TAG, MCP_TAG],
    governed: false,
    promptSnippet: `${STATUS_TOOL}: state of the MCP server connections (use after a connection error)`,
    async execute(call) {
      const only = typeof call.args.server === "string" ? call.args.server : undefined;
      const picked = only ? servers.filter((s) => s.name === only) : servers;
      return { content: [{ type: "text", text: serversStatusText(servers, only) }], details: { servers: picked.map((s) => s.status()) } };
    },
  });
}

/** Registers `/<root> servers` and `/<root> restart [name]` (each only when the path is still free). */
export function registerServerCommands(pipeline: Pipeline, owner: string, root: string, servers: readonly ManagedMcpServer[]): void {
  if (!pipeline.commands.has(`${root} servers`)) {
    pipeline.registerCommand(owner, `${root} servers`, {
      description: "MCP servers: state, uptime, reconnect history, last error",
      handler: (args, ctx) => ctx.ui.notify(serversStatusText(servers, args.trim() || undefined), "info"),
      completions: (prefix) => servers.map((s) => s.name).filter((n) => n.startsWith(prefix)),
    });
  }
  if (!pipeline.commands.has(`${root} restart`)) {
    pipeline.registerCommand(owner, `${root} restart`, {
      description: "Restart MCP servers now (all, or the one named): /" + root + " restart [name]",
      completions: (prefix) => servers.map((s) => s.name).filter((n) => n.startsWith(prefix)),
      async handler(args, ctx) {
        const name = args.trim();
        const picked = name ? servers.filter((s) => s.name === name) : servers;
        if (picked.length === 0) {
          ctx.ui.notify(serversStatusText(servers, name || undefined), "warning");
          return;
        }
        const results = await Promise.allSettled(picked.map((s) => s.restart()));
        const lines = results.map((r, i) =>
          r.status === "fulfilled"
            ? `${picked[i]!.name}: restarted (${picked[i]!.status().toolCount} tools)`
            : `${picked[i]!.name}: restart failed: ${errorText(r.reason)}`,
        );
        ctx.ui.notify(lines.join("\n"), results.some((r) => r.status === "rejected") ? "error" : "info");
      },
    });
  }
}
