/**
 * A scriptable in-memory ServerConnection and Connector for driving ManagedMcpServer's state machine
 * with fake timers. Real processes are covered by test/integration/lib/mcp.
 */
import type { Clock } from "../../core/services.ts";
import type { ConnectRequest, Connector, ExitInfo, McpTool, McpToolResult, ServerConnection } from "../../lib/mcp/index.ts";
import { McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js";
export { rejection } from "./rejection.ts";

/** A clock over the global timers, which vi.useFakeTimers() replaces. */
export const timerClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export const TOOLS: McpTool[] = [
  { name: "read", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "put", inputSchema: { type: "object" }, annotations: { idempotentHint: true } },
  { name: "write", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } },
];

let nextPid = 1000;

/** One fake child. `hang()` makes pings and calls stop answering; `crash()` exits it. */
export class FakeConnection implements ServerConnection {
  readonly pid = nextPid++;
  readonly serverVersion = { name: "fake", version: "1.0" };
  readonly exited: Promise<ExitInfo>;
  pings = 0;
  calls: Array<{ name: string; signal: AbortSignal | undefined; settle(result: McpToolResult): void }> = [];
  hung = false;
  /** When true, calls resolve at once with "ok:<name>". */
  autoAnswer = true;
  private resolveExit!: (info: ExitInfo) => void;
  private gone = false;

  constructor(readonly tools: McpTool[] = TOOLS) {
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  async listTools(): Promise<McpTool[]> {
    return this.tools;
  }

  callTool(name: string, _args: Record<string, unknown>, options: { signal?: AbortSignal }): Promise<McpToolResult> {
    return new Promise((resolve, reject) => {
      const settle = (result: McpToolResult) => resolve(result);
      this.calls.push({ name, signal: options.signal, settle });
      options.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
      if (this.autoAnswer && !this.hung) resolve({ content: [{ type: "text", text: `ok:${name}` }] });
    });
  }

  ping(timeoutMs: number): Promise<void> {
    this.pings++;
    if (!this.hung) return Promise.resolve();
    return new Promise((_, reject) => setTimeout(() => reject(new SdkMcpError(-32001, "Request timed out")), timeoutMs));
  }

  stderrTail(): string | undefined {
    return "fake stderr";
  }

  /** The child dies on its own. */
  crash(signal = "SIGKILL"): void {
    this.exit({ code: null, signal, requested: false });
  }

  hang(): void {
    this.hung = true;
  }

  kill(): void {
    this.exit({ code: null, signal: "SIGKILL", requested: true });
  }

  async close(): Promise<void> {
    this.exit({ code: 0, signal: null, requested: true });
  }

  get alive(): boolean {
    return !this.gone;
  }

  private exit(info: ExitInfo): void {
    if (this.gone) return;
    this.gone = true;
    this.resolveExit(info);
  }
}

/**
 * A connector whose starts follow `plan` (one entry per start; "ok" after the plan runs out). A number
 * is a start that takes that many ms (and honours the request's abort signal).
 */
export function fakeConnector(
  plan: Array<"ok" | Error | number> = [],
): Connector & { starts: Array<{ at: number; request: ConnectRequest }>; connections: FakeConnection[]; tools: McpTool[]; autoAnswer: boolean } {
  const starts: Array<{ at: number; request: ConnectRequest }> = [];
  const connections: FakeConnection[] = [];
  const connector = Object.assign(
    async (request: ConnectRequest): Promise<ServerConnection> => {
      starts.push({ at: Date.now(), request });
      const step = plan.shift() ?? "ok";
      if (step instanceof Error) throw step;
      if (typeof step === "number") {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, step);
          request.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(request.signal!.reason)), { once: true });
        });
      }
      const conn = new FakeConnection(connector.tools);
      conn.autoAnswer = connector.autoAnswer;
      connections.push(conn);
      return conn;
    },
    { starts, connections, tools: TOOLS, autoAnswer: true },
  );
  return connector;
}
