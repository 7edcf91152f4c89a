/**
 * The briefing text for a set of files, from KotaDB: key dependencies (top 5), top dependents (top 10),
 * suggested tests (top 5) and how to dig deeper, under a byte cap. Lists shrink before anything is
 * cut, so the header and the way to dig deeper always survive.
 */
import type { KotaRuntime } from "../kota/index.ts";

/** How many dependencies, dependents and tests a briefing lists at most. */
export const BRIEFING_LIMITS = Object.freeze({ dependencies: 5, dependents: 10, tests: 5 });

const isTest = (p: string) => /(^|\/)(__tests__|tests?)\/|\.(test|spec)\.[cm]?[jt]sx?$/.test(p);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** What the briefing lists. */
export interface BriefingFacts {
  files: string[];
  dependentCounts: Map<string, number>;
  dependencies: string[];
  dependents: string[];
  tests: string[];
  stale: boolean;
}

/** Queries KotaDB for `files` (task context, then each file's direct dependencies). */
export async function gatherFacts(runtime: KotaRuntime, files: string[], signal: AbortSignal): Promise<BriefingFacts> {
  const task = (await runtime.call("generate_task_context", { files, include_tests: true, max_impacted_files: 30 }, signal)).json;
  const dependentCounts = new Map<string, number>();
  for (const t of Array.isArray(task.targetFiles) ? task.targetFiles : []) {
    const r = t as { path?: unknown; dependentCount?: unknown };
    if (typeof r.path === "string") dependentCounts.set(r.path, Number(r.dependentCount ?? 0));
  }
  const impacted = strs(task.impactedFiles).filter((f) => !files.includes(f));
  const deps = await Promise.all(
    files.map((f) => runtime.call("search_dependencies", { file_path: f, direction: "dependencies", depth: 1, include_tests: false }, signal)),
  );
  const dependencies = [...new Set(deps.flatMap((d) => strs((d.json.dependencies as { direct?: unknown } | undefined)?.direct)))].filter(
    (f) => !files.includes(f),
  );
  const tests = [...new Set([...strs(task.testFiles), ...impacted.filter(isTest)])];
  return { files, dependentCounts, dependencies, dependents: impacted.filter((f) => !isTest(f)), tests, stale: (await runtime.indexState()) === "stale" };
}

function listText(label: string, items: string[], cap: number): string {
  if (!items.length) return `${label}: none`;
  return `${label}: ${items.slice(0, cap).join(", ")}${items.length > cap ? ` (+${items.length - cap} more)` : ""}`;
}

/** Renders the facts under `maxBytes` (UTF-8). */
export function renderBriefing(facts: BriefingFacts, maxBytes: number): string {
  const build = (scale: number) =>
    [
      `[autoContext] KotaDB briefing for ${facts.files.map((f) => `${f} (${facts.dependentCounts.get(f) ?? 0} dependents)`).join(", ")}${facts.stale ? " [index is stale: kota_index refreshes it]" : ""}`,
      listText("Key dependencies", facts.dependencies, Math.max(1, Math.floor(BRIEFING_LIMITS.dependencies * scale))),
      listText("Top dependents", facts.dependents, Math.max(1, Math.floor(BRIEFING_LIMITS.dependents * scale))),
      listText("Suggested tests", facts.tests, Math.max(1, Math.floor(BRIEFING_LIMITS.tests * scale))),
      'Dig deeper: kota_deps (graph), kota_usages (symbols), kota_impact (before changing), kota_search with output "snippet" (code).',
    ].join("\n");
  for (const scale of [1, 0.6, 0.3, 0]) {
    const text = build(scale);
    if (Buffer.byteLength(text) <= maxBytes) return text;
  }
  const text = build(0);
  let cut = text.slice(0, maxBytes);
  // "…" is 3 bytes in UTF-8.
  while (Buffer.byteLength(cut) > maxBytes - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
}
