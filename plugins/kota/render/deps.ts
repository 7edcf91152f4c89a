/**
 * `kota_deps` rendering of KotaDB's `search_dependencies` answer: a one-line summary of counts, then
 * direct and indirect neighbours per direction, then unresolved (package) imports.
 */
import { listLine, lines, obj, s, strs } from "./text.ts";

/** Most files listed per group. */
const MAX_FILES = 25;

function direction(label: string, value: unknown): { count: number; text: string | undefined } {
  if (value === undefined) return { count: 0, text: undefined };
  const v = obj(value);
  const direct = strs(v.direct);
  const indirect = obj(v.indirect);
  const levels = Object.keys(indirect).sort();
  const cycles = Array.isArray(v.cycles) ? v.cycles.length : 0;
  const count = typeof v.count === "number" ? v.count : direct.length + levels.reduce((n, k) => n + strs(indirect[k]).length, 0);
  return {
    count,
    text: lines(
      listLine(`${label}, direct`, direct, MAX_FILES) ?? `${label}: none`,
      ...levels.map((k) => listLine(`${label}, ${k.replace("_", " ")}`, strs(indirect[k]), MAX_FILES)),
      cycles ? `${label}: ${cycles} cycle(s)` : undefined,
    ),
  };
}

/** Renders a search_dependencies answer. */
export function renderDeps(answer: Record<string, unknown>): string {
  const file = s(answer.file_path);
  if (typeof answer.message === "string" && /not found/i.test(answer.message)) {
    return `${answer.message} Check the path with kota_search (output "paths"), or run kota_index if the repository changed.`;
  }
  const dependents = direction("Dependents", answer.dependents);
  const dependencies = direction("Dependencies", answer.dependencies);
  const parts = [
    answer.dependents !== undefined ? `${dependents.count} dependents` : undefined,
    answer.dependencies !== undefined ? `${dependencies.count} dependencies` : undefined,
  ].filter(Boolean);
  return lines(
    `${file} (${s(answer.direction) || "both"}, depth ${s(answer.depth) || 1}): ${parts.join(", ")}.`,
    dependents.text,
    dependencies.text,
    listLine("Unresolved imports (packages)", strs(answer.unresolved_imports), 10),
  );
}
