import type { Clamp } from "./args.ts";
import type { AnswerSize } from "./measure.ts";

/** One request the downshift issued, with what it changed and how large the answer was. */
export interface Attempted {
  /** `context_lines=1` (what this rung changed), or "" for the original request. */
  change: string;
  /** Size of the answer, or undefined when the request failed. */
  size?: AnswerSize;
  /** Failure category, when the request failed. */
  failed?: string;
}

const n = (x: number) => x.toLocaleString("en-US");

/** `[budget: limit 100 -> 50 (hard cap)]` */
export function clampNote(toolName: string, clamps: readonly Clamp[]): string {
  return `[budget: ${toolName} ${clamps.map((c) => `${c.arg} ${n(c.from)} -> ${n(c.to)}`).join(", ")} (hard cap${clamps.length > 1 ? "s" : ""})]`;
}

/**
 * What the model is told after a downshift: the original size and budget, each cheaper request and
 * its measured size, which answer is shown, and how to ask for more.
 */
export function downshiftNote(toolName: string, maxBytes: number, attempts: readonly Attempted[], chosen: number, fitted: boolean, hint: string | undefined): string {
  const first = attempts[0]!;
  const steps = attempts
    .slice(1)
    .map((a, i) => `${a.change} -> ${a.size ? `${n(a.size.bytes)} bytes` : `failed (${a.failed ?? "error"})`}${i + 1 === chosen ? " (shown)" : ""}`)
    .join("; ");
  const outcome = fitted ? "" : ` None fit; showing the smallest${chosen === 0 ? " (the original)" : ""}.`;
  const more = `To get more: ${hint ?? "narrow the request, or ask for fewer items at a time"}.`;
  return `[budget: ${toolName}'s answer was ${n(first.size?.bytes ?? 0)} bytes, over its ${n(maxBytes)}-byte budget; re-issued cheaper: ${steps}.${outcome} ${more}]`;
}
