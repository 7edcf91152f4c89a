/**
 * The raw failures a real transport throws, one per category. They are not GovernorErrors: they go
 * through core's classifyError like a real throw does, so the category, the recoverable flag, the
 * retry-after and the agent message are exactly what a real outage of that kind produces. Each
 * message ends with "(injected by chaos)", so nobody reading it mistakes it for a real outage.
 */
import type { ChaosErrorCategory } from "./config.ts";

/** Marker at the end of every injected message. */
export const INJECTED_NOTE = "(injected by chaos)";

function raw(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(`${message} ${INJECTED_NOTE}`), fields);
}

/**
 * What the transport would throw for `category`: a Node socket error (network), an HTTP 429 with a
 * retry-after header in seconds (rate_limit), an HTTP 401 (auth), JSON-RPC errors of the MCP SDK
 * (-32602 invalid params, -32000 connection closed, -32001 request timed out, -32603 internal
 * error), or a plain Error (unknown).
 */
export function transportError(category: ChaosErrorCategory, retryAfterMs?: number): Error {
  switch (category) {
    case "network":
      return raw("read ECONNRESET", { code: "ECONNRESET", errno: -104, syscall: "read" });
    case "rate_limit":
      return raw("HTTP 429 Too Many Requests", {
        status: 429,
        ...(retryAfterMs !== undefined ? { headers: { "retry-after": String(retryAfterMs / 1000) } } : {}),
      });
    case "auth":
      return raw("HTTP 401 Unauthorized", { status: 401 });
    case "invalid_input":
      return raw("MCP error -32602: Invalid params", { code: -32602 });
    case "connection_lost":
      return raw("MCP error -32000: Connection closed", { code: -32000 });
    case "timeout":
      return raw("MCP error -32001: Request timed out", { code: -32001 });
    case "mcp":
      return raw("MCP error -32603: Internal error", { code: -32603 });
    case "unknown":
      return raw("simulated unexpected failure", {});
  }
}

/** An `isError` tool result as an MCP server sends it, for classifyError. */
export function isErrorResult(text: string | undefined): { isError: true; content: Array<{ type: "text"; text: string }> } {
  return { isError: true, content: [{ type: "text", text: `${text ?? "simulated tool failure"} ${INJECTED_NOTE}` }] };
}

const FILLER_LINE = "chaos filler: oversized output injected to exercise output budgets and blobs ......\n";
const fillers = new Map<number, string>();

/** `bytes` bytes of ASCII filler text in lines (cached per size: the soak repeats sizes). */
export function fillerText(bytes: number): string {
  let text = fillers.get(bytes);
  if (text === undefined) {
    text = FILLER_LINE.repeat(Math.ceil(bytes / FILLER_LINE.length)).slice(0, bytes);
    if (fillers.size >= 8) fillers.delete(fillers.keys().next().value!);
    fillers.set(bytes, text);
  }
  return text;
}
