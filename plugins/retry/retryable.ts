/**
 * What retry may repeat: which tools (safe to repeat) and which outcomes (transient failures).
 */
import type { ToolInfo, ToolObservation } from "../../core/index.ts";
import { isSafeToRepeat } from "../../lib/resilience/index.ts";
import type { RetryOptions, ToolRetrySettings } from "./config.ts";

/** Categories no configuration can make retryable: repeating them cannot help or is unsafe. */
export const NEVER_RETRIED: ReadonlySet<string> = new Set(["auth", "invalid_input", "budget", "spawn", "circuit_open"]);

/**
 * Whether calls of `tool` are retried at all: a per-tool `enabled` wins; otherwise tools marked
 * read-only or idempotent, tools listed in `tools`, or every tool when `onlySafeTools` is false.
 */
export function isRetriedTool(options: RetryOptions, tool: ToolInfo): boolean {
  const own = options.perTool[tool.name]?.enabled;
  if (own !== undefined) return own;
  if (!options.onlySafeTools) return true;
  return isSafeToRepeat(tool.annotations, options.tools.includes(tool.name));
}

/** Whether this outcome is transient under `settings`: a thrown error and an `isError` result both arrive here as ERROR. */
export function isTransient(obs: ToolObservation, settings: ToolRetrySettings): boolean {
  switch (obs.status) {
    case "SUCCESS":
      return false;
    case "TIMEOUT_EXCEEDED":
      return settings.retryTimeouts;
    case "ERROR": {
      const category = obs.error.category;
      if (NEVER_RETRIED.has(category)) return false;
      if (category === "timeout") return settings.retryTimeouts;
      return settings.retryOn.has(category);
    }
  }
}

/** The server's retry-after hint carried by the outcome, in milliseconds. */
export function retryAfterOf(obs: ToolObservation): number | undefined {
  return obs.status === "ERROR" ? obs.error.retryAfterMs : undefined;
}
