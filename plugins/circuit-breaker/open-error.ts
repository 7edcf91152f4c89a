/**
 * The structured, agent-facing error of a call refused by an open circuit: what is failing, since
 * when, and when it will be tried again.
 */
import { CircuitOpenError, failure, type ErrorObservation } from "../../core/index.ts";
import { formatSeconds } from "../../core/observation.ts";
import type { Circuit } from "./circuit.ts";

/** The ERROR observation (category `circuit_open`) for `toolName` refused by `circuit` at `now`. */
export function circuitOpenObservation(toolName: string, circuit: Circuit, now: number): ErrorObservation {
  const waitMs = circuit.retryInMs(now);
  const when = waitMs > 0 ? `in ${formatSeconds(Math.ceil(waitMs / 100) * 100)}` : "as soon as the trial call in flight ends";
  const what = circuit.key === toolName ? toolName : `${toolName} (server ${circuit.key})`;
  const error = new CircuitOpenError(
    `${what} is paused after ${circuit.openedAfter} failures${circuit.lastFailure ? ` (last: ${circuit.lastFailure})` : ""}; calls fail fast until one trial call is let through ${when}`,
    {
      ...(waitMs > 0 ? { retryAfterMs: waitMs } : {}),
      agentMessage: `Do not call ${toolName} again ${when}; use another approach meanwhile, or tell the user the server is failing.`,
    },
  );
  const obs = failure(toolName, error);
  obs.meta = { ...obs.meta, circuit: { key: circuit.key, state: circuit.state, retryInMs: Math.round(waitMs) } };
  return obs;
}
