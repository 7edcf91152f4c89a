/**
 * The KotaConnection the kota plugin uses in production: lib/mcp's ManagedMcpServer (lazy start,
 * connect timeout, heartbeat, reconnect with backoff, degraded state, recovery queue, clean close).
 * KotaDB's read-only tools are declared safe to replay; a probe records whether anything is indexed,
 * so a reconnect that lost the index is reported once.
 */
import type { Logger } from "../../core/index.ts";
import { formatServerStatus, ManagedMcpServer } from "../../lib/mcp/index.ts";
import type { Redactor } from "../../lib/redact/index.ts";
import type { KotaConnection, KotaLaunch, RawToolResult } from "./connection.ts";

/** KotaDB core tools that change nothing (safe to replay after a reconnect). index_repository is not. */
export const KOTA_READ_ONLY_TOOLS: readonly string[] = Object.freeze([
  "search",
  "list_recent_files",
  "search_dependencies",
  "find_usages",
  "analyze_change_impact",
  "get_index_statistics",
  "generate_task_context",
]);

/** A ManagedMcpServer named `kota` for `launch`. Nothing starts until the first call. */
export function managedKotaConnection(launch: KotaLaunch, logger: Logger, restartCommand: string, redactor?: Pick<Redactor, "redact">): KotaConnection {
  const server = new ManagedMcpServer(
    {
      name: "kota",
      command: launch.command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      connectTimeoutMs: launch.connectTimeoutMs,
      installHint: launch.installHint,
      restartCommand,
      replayTools: [...KOTA_READ_ONLY_TOOLS],
      ...(redactor ? { redact: (text: string) => redactor.redact(text) } : {}),
      probe: async (caller, signal) => {
        const result = await caller.callTool("get_index_statistics", {}, { signal, timeoutMs: launch.connectTimeoutMs });
        const text = (result.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
        try {
          return { indexed: Number((JSON.parse(text) as { files?: unknown }).files ?? 0) > 0 };
        } catch {
          return {};
        }
      },
    },
    { logger },
  );
  return {
    async callTool(name, args, options = {}): Promise<RawToolResult> {
      const result = await server.callTool(name, args, options.signal ? { signal: options.signal } : {});
      return { content: (result.content ?? []) as RawToolResult["content"], ...(result.isError ? { isError: true } : {}) };
    },
    state: () => server.state,
    lastError: () => server.status().lastError?.message,
    statusText: () => formatServerStatus(server.status()),
    takeNotice: () => server.takeNotice(),
    restart: () => server.restart(),
    close: () => server.close(),
    pid: () => server.status().pid,
    onStateChange: (listener) => server.subscribe((event) => event.type === "state" && listener(event.to)),
  };
}
