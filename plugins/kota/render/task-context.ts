/**
 * `kota_task_context` rendering of KotaDB's `generate_task_context` answer: per target file its
 * dependent count, then impacted files, test files and the most recent changes (top 5).
 */
import { arr, listLine, lines, obj, s, strs } from "./text.ts";

/** Most recent changes listed. */
const MAX_RECENT = 5;

/** Renders a generate_task_context answer; `maxImpacted` caps the impacted list. */
export function renderTaskContext(answer: Record<string, unknown>, maxImpacted: number): string {
  const targets = arr(answer.targetFiles).map(obj);
  const impacted = strs(answer.impactedFiles);
  const tests = strs(answer.testFiles);
  const recent = arr(answer.recentChanges).map(obj);
  return lines(
    `Task context for ${targets.length} file(s): ${impacted.length} impacted, ${tests.length} test file(s)${answer.indexStale === true ? "; KotaDB reports the index is stale (run kota_index)" : ""}.`,
    ...targets.map(
      (t) =>
        `  ${s(t.path)}: ${s(t.dependentCount)} dependents${
          arr(t.symbols).length
            ? `; symbols: ${arr(t.symbols)
                .map((x) => s(obj(x).name) || s(x))
                .slice(0, 10)
                .join(", ")}`
            : ""
        }`,
    ),
    listLine("Impacted", impacted, maxImpacted),
    listLine("Tests", tests, 10),
    listLine(
      "Recently indexed",
      recent.map((r) => s(r.path)),
      MAX_RECENT,
    ),
  );
}
