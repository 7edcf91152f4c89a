/**
 * The real {@link Connector}: one child process through the SDK's StdioClientTransport and Client.
 * Start failures are classified here, where the evidence is (spawn error, exit status, stderr,
 * non-JSON stdout), and the child is always gone before a start rejects.
 */
import type { ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { classifyError, McpError, SpawnError, TimeoutError } from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { formatSeconds } from "../../core/observation.ts";
import { absoluteSearchPath } from "../search-path/index.ts";
import { AnswerLineBuffer, type OversizedLine } from "./answer-line-buffer.ts";
import { registerChild } from "./child-registry.ts";
import type { ConnectRequest, ExitInfo, McpTool, ServerConnection } from "./connection-types.ts";
import { redactedCommandLine } from "../redact/index.ts";
import { StderrTail } from "./stderr-tail.ts";

const CLIENT_INFO = { name: "pi-governor", version: "0.1.0" };

/** Most tools read from one server's tools/list (all pages together). */
export const MAX_LISTED_TOOLS = 100_000;
/** Most tools/list pages read from one server. */
export const MAX_TOOL_PAGES = 1_000;

/** JSON-RPC error code of the answer that stands in for one over the size limit (implementation-defined range). */
export const ANSWER_TOO_LARGE_RPC_CODE = -32099;

const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;

/**
 * StdioClientTransport that hands out its child process (exit status and kill need it), reads stdout
 * with an {@link AnswerLineBuffer}, and knows which requests await an answer (to fail the one whose
 * answer was too large).
 */
class ChildStdioTransport extends StdioClientTransport {
  onChild?: (child: ChildProcess) => void;
  /** Requests sent and not yet answered: id -> method. */
  readonly outstanding = new Map<string | number, string>();
  readonly lines: AnswerLineBuffer;

  constructor(params: ConstructorParameters<typeof StdioClientTransport>[0], maxAnswerBytes: number, tooLarge: (line: OversizedLine) => string) {
    super(params);
    this.lines = new AnswerLineBuffer(maxAnswerBytes, (line) => this.answersFor(line, tooLarge(line)));
    const read = this.lines.readMessage.bind(this.lines);
    this.lines.readMessage = () => {
      const message = read();
      if (message && "id" in message && message.id !== undefined && !("method" in message)) this.outstanding.delete(message.id);
      return message;
    };
    // The SDK's ReadBuffer lives in a private field (SDK 1.32); the replacement has the same three methods.
    (this as unknown as { _readBuffer: unknown })._readBuffer = this.lines;
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if ("method" in message && "id" in message) this.outstanding.set(message.id, message.method);
    return super.send(message);
  }

  /** Error answers for what a dropped line answered: its id, else the one tools/call waiting, else every waiting tools/call. */
  private answersFor(line: OversizedLine, message: string): JSONRPCMessage[] {
    const calls = [...this.outstanding].filter(([, method]) => method === "tools/call").map(([id]) => id);
    const ids = line.id !== undefined && this.outstanding.has(line.id) ? [line.id] : line.id === undefined ? calls : [];
    return ids.map((id) => ({
      jsonrpc: "2.0" as const,
      id,
      error: { code: ANSWER_TOO_LARGE_RPC_CODE, message, data: { bytes: line.bytes, shared: ids.length > 1 } },
    }));
  }
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

/**
 * The child process as the connection knows it: its handle once spawned, how it exited, and whether
 * this side asked it to go (a requested exit is not a crash).
 */
class ChildWatch {
  child: ChildProcess | undefined;
  exitInfo: ExitInfo | undefined;
  requested = false;
  readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;

  constructor() {
    this.exited = new Promise<ExitInfo>((resolve) => (this.resolveExited = resolve));
  }

  attach(c: ChildProcess): void {
    this.child = c;
    // An idle server must not hold the host open: the manager holds the process (keep-alive.ts) while
    // a caller waits; at exit the child registry kills what is left.
    c.unref();
    for (const pipe of [c.stdin, c.stdout, c.stderr]) (pipe as { unref?: () => void } | null)?.unref?.();
    // A spawn that failed (ENOENT) has no pid and never emits 'exit'.
    if (c.pid !== undefined) registerChild(c);
    c.once("exit", (code, signal) => {
      this.exitInfo = { code, signal, requested: this.requested };
      this.resolveExited(this.exitInfo);
    });
  }

  /** Fallback when the SDK's child handle is not reachable: the transport closing means the child is gone. */
  transportClosed(): void {
    this.exitInfo ??= { code: null, signal: null, requested: this.requested };
    this.resolveExited(this.exitInfo);
  }

  readonly kill = (): void => {
    this.requested = true;
    try {
      this.child?.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  };
}

/** What the transport reported while the server was starting: the first non-JSON line, and who to fail. */
interface StartWatch {
  failure?: (error: Error) => void;
  noise?: string;
}

function openTransport(request: ConnectRequest, stderr: StderrTail, limitKey: string): ChildStdioTransport {
  const transport = new ChildStdioTransport(
    {
      command: request.command,
      args: request.args,
      // The command is looked up on PATH in `cwd` (often the repository): only absolute entries count.
      env: { ...request.env, PATH: absoluteSearchPath(request.env.PATH ?? process.env.PATH) ?? "" },
      stderr: "pipe",
      ...(request.cwd ? { cwd: request.cwd } : {}),
    },
    request.maxAnswerBytes,
    (line) => {
      const why = `MCP server "${request.name}" answered with ${mb(line.bytes)}, over the limit of ${mb(request.maxAnswerBytes)} (${limitKey})`;
      request.onTransportError?.(new Error(`${why}; the answer was dropped, the server keeps running`));
      return why;
    },
  );
  transport.stderr?.on("data", (chunk: Buffer) => stderr.append(chunk));
  return transport;
}

/** Starts `request.command` as a stdio MCP server and initializes it. See {@link Connector}. */
export async function openStdioConnection(request: ConnectRequest): Promise<ServerConnection> {
  const stderr = new StderrTail(undefined, request.redact);
  const limitKey = request.answerLimitKey ?? "maxAnswerBytes";
  const transport = openTransport(request, stderr, limitKey);
  const watch = new ChildWatch();
  transport.onChild = (c) => watch.attach(c);
  transport.onclose = () => watch.transportClosed();
  const start: StartWatch = {};
  transport.onerror = (error: Error) => {
    if (isProtocolNoise(error)) start.noise ??= errorText(error).slice(0, 200);
    if (start.failure && isProtocolNoise(error)) start.failure(error);
    else request.onTransportError?.(error);
  };

  const subject = `MCP server "${request.name}"`;
  const what = request.redact ? redactedCommandLine(request.command, request.args, { redact: request.redact }) : [request.command, ...request.args].join(" ");
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await initialize(client, transport, request, { start, watch, stderr, what });
  } catch (error) {
    watch.kill();
    if (watch.child?.pid !== undefined) await watch.exited;
    await new Promise((r) => setImmediate(r));
    void client.close().catch(() => {});
    if (request.signal?.aborted && error === request.signal.reason) throw error;
    throw classifyStartFailure(error, { request, subject, what, exitInfo: watch.exitInfo, stderr, noise: start.noise });
  }
  return connectionOver(client, transport, request, watch, stderr, limitKey);
}

/** Connects the client within the connect timeout; rejects on a timeout, an abort, noise on stdout or an exit. */
async function initialize(
  client: Client,
  transport: ChildStdioTransport,
  request: ConnectRequest,
  o: { start: StartWatch; watch: ChildWatch; stderr: StderrTail; what: string },
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => {
      reject(
        new TimeoutError(
          `${request.name} failed to start within ${formatSeconds(request.connectTimeoutMs)}. Check that '${request.command}' is installed and working (${o.what}). Run ${request.restartCommand} to retry.`,
          request.connectTimeoutMs,
          {
            agentMessage: `The ${request.name} server did not start. Tell the user to check it and run ${request.restartCommand}; continue without its tools meanwhile.`,
            ...tailOf(o.stderr),
          },
        ),
      );
    }, request.connectTimeoutMs);
    timer.unref();
    o.start.failure = (error) => reject(error);
    if (request.signal?.aborted) reject(request.signal.reason);
    request.signal?.addEventListener("abort", () => o.start.failure?.(request.signal!.reason), { once: true });
    client.connect(transport, { timeout: request.connectTimeoutMs + 1_000 }).then(resolve, reject);
    // Backstop: the SDK rejects initialize when the pipe closes; this covers a child whose pipes stay open.
    void o.watch.exited.then(() => {
      if (o.start.failure) setTimeout(() => reject(new Error("exited during start")), 50).unref();
    });
  }).finally(() => {
    o.start.failure = undefined;
    clearTimeout(timer);
  });
}

/** The started server as a {@link ServerConnection}. */
function connectionOver(
  client: Client,
  transport: ChildStdioTransport,
  request: ConnectRequest,
  watch: ChildWatch,
  stderr: StderrTail,
  limitKey: string,
): ServerConnection {
  const serverVersion = client.getServerVersion();
  let closing: Promise<void> | undefined;
  return {
    get pid() {
      return watch.child?.pid;
    },
    serverVersion: serverVersion ? { name: serverVersion.name, version: serverVersion.version } : undefined,
    exited: watch.exited,
    stderrTail: () => stderr.tail(),
    listTools: (signal) => listAllTools(client, signal, request.connectTimeoutMs),
    async callTool(name, args, options) {
      try {
        return (await client.callTool({ name, arguments: args }, undefined, {
          ...(options.signal ? { signal: options.signal } : {}),
          timeout: options.timeoutMs,
        })) as never;
      } catch (error) {
        if ((error as { code?: unknown })?.code !== ANSWER_TOO_LARGE_RPC_CODE) throw error;
        throw answerTooLarge(request, name, limitKey, error as Error & { data?: { shared?: boolean } });
      }
    },
    ping: (timeoutMs) => pingWithin(client, transport, request.name, timeoutMs),
    kill: watch.kill,
    close(graceMs) {
      closing ??= closeGracefully(client, watch, graceMs);
      return closing;
    },
  };
}

/** Every page of tools/list, up to {@link MAX_TOOL_PAGES} pages and {@link MAX_LISTED_TOOLS} tools. */
async function listAllTools(client: Client, signal: AbortSignal | undefined, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  // A server that pages forever, or lists millions of tools, stops here; callers cap far lower.
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
    tools.push(...page.tools.slice(0, MAX_LISTED_TOOLS - tools.length));
    cursor = page.nextCursor;
  } while (cursor && ++pages < MAX_TOOL_PAGES && tools.length < MAX_LISTED_TOOLS);
  return tools;
}

/** A ping that fails after `timeoutMs` of silence: bytes of a long answer still arriving count as alive. */
async function pingWithin(client: Client, transport: ChildStdioTransport, name: string, timeoutMs: number): Promise<void> {
  // Answers queue behind a long answer on the same pipe: bytes still arriving mean the server is alive.
  const abort = new AbortController();
  let seen = transport.lines.received;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const check = () => {
      if (transport.lines.received > seen) {
        seen = transport.lines.received;
        timer = setTimeout(check, timeoutMs);
        timer.unref();
        return;
      }
      const error = new TimeoutError(`MCP server "${name}" did not answer a ping within ${formatSeconds(timeoutMs)}`, timeoutMs, {
        agentMessage: "The server stopped answering.",
      });
      abort.abort(error);
      reject(error);
    };
    timer = setTimeout(check, timeoutMs);
    timer.unref();
  });
  expired.catch(() => {});
  try {
    await Promise.race([client.ping({ signal: abort.signal, timeout: 2 ** 31 - 1 }), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** stdin EOF and SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
async function closeGracefully(client: Client, watch: ChildWatch, graceMs: number): Promise<void> {
  if (watch.exitInfo || watch.child?.pid === undefined) return void (await client.close().catch(() => {}));
  watch.requested = true;
  const target = watch.child;
  // stdin EOF and SIGTERM together: well-behaved servers exit on either.
  void client.close().catch(() => {});
  try {
    target.kill("SIGTERM");
  } catch {
    // Already gone.
  }
  const timer = setTimeout(watch.kill, graceMs);
  timer.unref();
  await watch.exited;
  clearTimeout(timer);
}

/** The error a call gets when its answer was over the limit: says the size, the limit, the key, and what to do. */
function answerTooLarge(_request: ConnectRequest, tool: string, limitKey: string, error: Error & { data?: { shared?: boolean } }): McpError {
  const shared = error.data?.shared ? " It could not be told which of the calls running at the time it answered, so each of them failed with this error." : "";
  return new McpError(
    `${tool}: ${error.message.replace(/^MCP error -?\d+: /, "")}; the answer was dropped and the server keeps running.${shared} Ask for less (a narrower request or a page), or raise ${limitKey}.`,
    {
      rpcCode: ANSWER_TOO_LARGE_RPC_CODE,
      recoverable: false,
      agentMessage: `The answer of ${tool} was too large to receive. Do not repeat the call with the same arguments: ask for less (a narrower query, a smaller range, one page).`,
      cause: error,
    },
  );
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
    return classifyError(error, {
      subject,
      command: request.command,
      ...(request.installHint ? { installHint: request.installHint } : {}),
      ...(stderrTail ? { stderrTail } : {}),
    });
  }
  if (e.noise !== undefined) {
    return new SpawnError(
      `${subject} speaks the wrong protocol: '${what}' wrote non-JSON to stdout (${request.redact ? request.redact(e.noise) : e.noise}). It is not an MCP stdio server, or it logs to stdout.`,
      {
        ...base,
        agentMessage: `The ${request.name} server is misconfigured (not an MCP server). Tell the user to check its command, then run ${request.restartCommand}; continue without its tools.`,
      },
    );
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
