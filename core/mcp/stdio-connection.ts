/**
 * The real {@link Connector}: one child process through the SDK's StdioClientTransport and Client.
 * Start failures are classified here, where the evidence is (spawn error, exit status, stderr,
 * non-JSON stdout), and the child is always gone before a start rejects.
 */
import type { ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { classifyError } from "../classify.ts";
import { errorText, SpawnError, TimeoutError } from "../errors.ts";
import { formatSeconds } from "../observation.ts";
import { registerChild } from "./child-registry.ts";
import type { ConnectRequest, ExitInfo, McpTool, ServerConnection } from "./connection-types.ts";
import { StderrTail } from "./stderr-tail.ts";

const CLIENT_INFO = { name: "pi-governor", version: "0.1.0" };

/** StdioClientTransport that hands out its child process (exit status and kill need it). */
class ChildStdioTransport extends StdioClientTransport {
  onChild?: (child: ChildProcess) => void;
  override async start(): Promise<void> {
    const started = super.start();
    // The SDK keeps the child in a private field (SDK 1.32); it is set synchronously in start().
    const child = (this as unknown as { _process?: ChildProcess })._process;
    if (child) this.onChild?.(child);
    return started;
  }
}

/** True for what the SDK reports when stdout carries something that is not a JSON-RPC message. */
function isProtocolNoise(error: Error): boolean {
  return error instanceof SyntaxError || error.name === "ZodError" || /is not valid JSON|Unexpected token|Unknown message type/i.test(error.message);
}

function describeExit(info: ExitInfo): string {
  return info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
}

/** Starts `request.command` as a stdio MCP server and initializes it. See {@link Connector}. */
export async function openStdioConnection(request: ConnectRequest): Promise<ServerConnection> {
  const stderr = new StderrTail();
  const transport = new ChildStdioTransport({
    command: request.command,
    args: request.args,
    env: request.env,
    stderr: "pipe",
    ...(request.cwd ? { cwd: request.cwd } : {}),
  });
  transport.stderr?.on("data", (chunk: Buffer) => stderr.append(chunk));

  let child: ChildProcess | undefined;
  let exitInfo: ExitInfo | undefined;
  let requested = false;
  let resolveExited!: (info: ExitInfo) => void;
  const exited = new Promise<ExitInfo>((resolve) => (resolveExited = resolve));
  transport.onChild = (c) => {
    child = c;
    // A spawn that failed (ENOENT) has no pid and never emits 'exit'.
    if (c.pid !== undefined) registerChild(c);
    c.once("exit", (code, signal) => {
      exitInfo = { code, signal, requested };
      resolveExited(exitInfo);
    });
  };

  // Fallback when the SDK's child handle is not reachable: the transport closing means the child is gone.
  transport.onclose = () => {
    exitInfo ??= { code: null, signal: null, requested };
    resolveExited(exitInfo);
  };

  let startFailure: ((error: Error) => void) | undefined;
  let noise: string | undefined;
  transport.onerror = (error: Error) => {
    if (isProtocolNoise(error)) noise ??= errorText(error).slice(0, 200);
    if (startFailure && isProtocolNoise(error)) startFailure(error);
    else request.onTransportError?.(error);
  };

  const kill = () => {
    requested = true;
    try {
      child?.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const subject = `MCP server "${request.name}"`;
  const what = [request.command, ...request.args].join(" ");

  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => {
        reject(
          new TimeoutError(
            `${request.name} failed to start within ${formatSeconds(request.connectTimeoutMs)}. Check that '${request.command}' is installed and working (${what}). Run ${request.restartCommand} to retry.`,
            request.connectTimeoutMs,
            { agentMessage: `The ${request.name} server did not start. Tell the user to check it and run ${request.restartCommand}; continue without its tools meanwhile.`, ...tailOf(stderr) },
          ),
        );
      }, request.connectTimeoutMs);
      timer.unref();
      startFailure = (error) => reject(error);
      if (request.signal?.aborted) reject(request.signal.reason);
      request.signal?.addEventListener("abort", () => startFailure?.(request.signal!.reason), { once: true });
      client.connect(transport, { timeout: request.connectTimeoutMs + 1_000 }).then(resolve, reject);
      // Backstop: the SDK rejects initialize when the pipe closes; this covers a child whose pipes stay open.
      void exited.then(() => {
        if (startFailure) setTimeout(() => reject(new Error("exited during start")), 50).unref();
      });
    }).finally(() => {
      startFailure = undefined;
      clearTimeout(timer);
    });
  } catch (error) {
    kill();
    if (child?.pid !== undefined) await exited;
    await new Promise((r) => setImmediate(r));
    void client.close().catch(() => {});
    if (request.signal?.aborted && error === request.signal.reason) throw error;
    throw classifyStartFailure(error, { request, subject, what, exitInfo, stderr, noise });
  }

  const serverVersion = client.getServerVersion();
  let closing: Promise<void> | undefined;
  return {
    get pid() {
      return child?.pid;
    },
    serverVersion: serverVersion ? { name: serverVersion.name, version: serverVersion.version } : undefined,
    exited,
    stderrTail: () => stderr.tail(),
    async listTools(signal) {
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: request.connectTimeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
    callTool(name, args, options) {
      return client.callTool({ name, arguments: args }, undefined, { ...(options.signal ? { signal: options.signal } : {}), timeout: options.timeoutMs }) as never;
    },
    async ping(timeoutMs) {
      await client.ping({ timeout: timeoutMs });
    },
    kill,
    close(graceMs) {
      closing ??= (async () => {
        if (exitInfo || child?.pid === undefined) return void (await client.close().catch(() => {}));
        requested = true;
        const target = child;
        // stdin EOF and SIGTERM together: well-behaved servers exit on either.
        void client.close().catch(() => {});
        try {
          target.kill("SIGTERM");
        } catch {
          // Already gone.
        }
        const timer = setTimeout(kill, graceMs);
        timer.unref();
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

interface FailureEvidence {
  request: ConnectRequest;
  subject: string;
  what: string;
  exitInfo: ExitInfo | undefined;
  stderr: StderrTail;
  noise: string | undefined;
}

function tailOf(stderr: StderrTail): { stderrTail?: string } {
  const t = stderr.tail();
  return t ? { stderrTail: t } : {};
}

/** Turns whatever ended a start into a SpawnError/TimeoutError that says what to check. */
function classifyStartFailure(error: unknown, e: FailureEvidence): Error {
  const { request, subject, what } = e;
  const stderrTail = e.stderr.tail();
  const base = { cause: error, ...(stderrTail ? { stderrTail } : {}) };
  if (error instanceof TimeoutError) return error;
  if ((error as { code?: unknown })?.code === "ENOENT" || (error as { code?: unknown })?.code === "EACCES") {
    return classifyError(error, { subject, command: request.command, ...(request.installHint ? { installHint: request.installHint } : {}), ...(stderrTail ? { stderrTail } : {}) });
  }
  if (e.noise !== undefined) {
    return new SpawnError(`${subject} speaks the wrong protocol: '${what}' wrote non-JSON to stdout (${e.noise}). It is not an MCP stdio server, or it logs to stdout.`, {
      ...base,
      agentMessage: `The ${request.name} server is misconfigured (not an MCP server). Tell the user to check its command, then run ${request.restartCommand}; continue without its tools.`,
    });
  }
  if (e.exitInfo && !e.exitInfo.requested) {
    const tailText = stderrTail ? ` Last stderr: ${stderrTail}` : " It printed nothing on stderr.";
    return new SpawnError(`${subject} ${describeExit(e.exitInfo)} during start ('${what}').${tailText}`, {
      ...base,
      agentMessage: `The ${request.name} server crashes at start. Tell the user (the stderr above says why) and that ${request.restartCommand} retries; continue without its tools.`,
    });
  }
  return classifyError(error, { subject, command: request.command, ...(stderrTail ? { stderrTail } : {}) });
}
