/**
 * `kota_usages` rendering of KotaDB's `find_usages` answer: where the symbol is defined, how many
 * usages in how many files, then one short line per usage (file:line type: code).
 */
import { arr, cut, lines, obj, s } from "./text.ts";

/** Most usages listed. */
const MAX_USAGES = 30;
/** Longest code excerpt per usage, in characters. */
const MAX_CONTEXT = 90;

/** Renders a find_usages answer. */
export function renderUsages(answer: Record<string, unknown>): string {
  const symbol = s(answer.symbol);
  const usages = arr(answer.usages).map(obj);
  if (!answer.defined_in && usages.length === 0) {
    return `${s(answer.message) || `No usages of ${symbol} found.`} Try kota_search with scope ["symbols"] to find the exact name.`;
  }
  const total = typeof answer.total_usages === "number" ? answer.total_usages : usages.length;
  const files = typeof answer.files_with_usages === "number" ? answer.files_with_usages : new Set(usages.map((u) => s(u.file))).size;
  const byType = new Map<string, number>();
  for (const u of usages) byType.set(s(u.usage_type), (byType.get(s(u.usage_type)) ?? 0) + 1);
  const mix = [...byType].map(([t, n]) => `${n} ${t}`).join(", ");
  return lines(
    `${symbol}${answer.kind ? ` (${s(answer.kind)})` : ""} defined at ${s(answer.defined_in) || "?"}: ${total} usages in ${files} files${mix ? ` (${mix})` : ""}.`,
    ...usages.slice(0, MAX_USAGES).map((u) => `  ${s(u.file)}:${s(u.line)} ${s(u.usage_type)}: ${cut(s(u.context), MAX_CONTEXT)}`),
    usages.length > MAX_USAGES ? `  +${usages.length - MAX_USAGES} more; narrow with file or include_tests: false.` : undefined,
  );
}
