/**
 * What plugins warned about while they were applied, as lines for the user (`/governor status`, the
 * notice at load). A warning whose data names a feature it turns off and a shared cause
 * (`{ off, why, fix }`, see {@link OffBecause}) is merged with every other warning of the same cause:
 * one line says the cause once, every feature it turns off, and the fix once. Two stages off for
 * one missing SQLite driver are one line, not two of 700 characters each.
 */
import type { LogRecord, OffBecause } from "../core/services.ts";

function offBecause(data: Record<string, unknown> | undefined): OffBecause | undefined {
  if (!data) return undefined;
  const { off, why, fix } = data;
  return typeof off === "string" && typeof why === "string" && typeof fix === "string" ? { off, why, fix } : undefined;
}

/** "a", "a and b", "a, b and c". */
function and(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The load warnings as lines, in order of first appearance; warnings of one cause merged (see above). */
export function loadWarningLines(records: readonly Pick<LogRecord, "source" | "message" | "data">[]): string[] {
  const lines: Array<string | { why: string; fix: string; off: string[] }> = [];
  for (const record of records) {
    const cause = offBecause(record.data);
    if (!cause) {
      lines.push(`${record.source}: ${record.message}`);
      continue;
    }
    const same = lines.find((l): l is { why: string; fix: string; off: string[] } => typeof l === "object" && l.why === cause.why && l.fix === cause.fix);
    if (!same) lines.push({ why: cause.why, fix: cause.fix, off: [cause.off] });
    else if (!same.off.includes(cause.off)) same.off.push(cause.off);
  }
  return lines.map((l) => (typeof l === "string" ? l : `${l.why}, so ${and(l.off)} ${l.off.length > 1 ? "are" : "is"} off. Fix: ${l.fix}.`));
}
