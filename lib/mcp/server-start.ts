/**
 * One start of a server: spawn and initialize (the connector), then tools/list and the caller's
 * state probe. A start that fails, or is no longer wanted, leaves no child behind.
 */
import type { Clock, Logger } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { formatSeconds } from "../../core/observation.ts";
import type { ResolvedServerConfig } from "./config.ts";
import type { Connector, McpTool, ServerConnection } from "./connection-types.ts";

/** A started server, ready to adopt. */
export interface StartedServer {
  conn: ServerConnection;
  tools: McpTool[];
  /** The probe's answer (`{ probeFailed: true }` when it failed or took too long). */
  extra: Record<string, unknown>;
}

/** What a start needs besides the config. */
export interface StartContext {
  connector: Connector;
  clock: Clock;
  logger: Logger | undefined;
  /** Cancels the start (restart, close): the child is killed. */
  signal: AbortSignal;
  /** Throws when the start is no longer wanted (checked after each await). */
  assertWanted(): void;
  onTransportError(error: Error): void;
}

/** Starts the server described by `c`. Rejects with the connector's classified error, or the reason it was no longer wanted. */
export async function startServer(c: ResolvedServerConfig, ctx: StartContext): Promise<StartedServer> {
  const conn = await ctx.connector({
    name: c.name,
    command: c.command,
    args: c.args,
    env: c.env,
    ...(c.cwd ? { cwd: c.cwd } : {}),
    ...(c.installHint ? { installHint: c.installHint } : {}),
    restartCommand: c.restartCommand,
    connectTimeoutMs: c.connectTimeoutMs,
    maxAnswerBytes: c.maxAnswerBytes,
    answerLimitKey: c.answerLimitKey,
    signal: ctx.signal,
    onTransportError: ctx.onTransportError,
    ...(c.redact ? { redact: c.redact } : {}),
  });
  try {
    ctx.assertWanted();
    const tools = await conn.listTools(ctx.signal);
    const extra = c.probe ? await runProbe(c, conn, ctx) : {};
    ctx.assertWanted();
    return { conn, tools, extra };
  } catch (error) {
    await conn.close(0);
    throw error;
  }
}

/** Runs the config's probe, bounded by `connectTimeoutMs`. A failing probe is logged, not fatal. */
async function runProbe(c: ResolvedServerConfig, conn: ServerConnection, ctx: StartContext): Promise<Record<string, unknown>> {
  let timer: unknown;
  try {
    const limit = new Promise<never>((_, reject) => {
      timer = ctx.clock.setTimeout(() => reject(new Error(`probe took longer than ${formatSeconds(c.connectTimeoutMs)}`)), c.connectTimeoutMs);
    });
    return await Promise.race([c.probe!(conn, ctx.signal), limit]);
  } catch (error) {
    ctx.logger?.warn(`MCP server ${c.name}: state probe failed: ${errorText(error)}`, { server: c.name });
    return { probeFailed: true };
  } finally {
    ctx.clock.clearTimeout(timer);
  }
}
