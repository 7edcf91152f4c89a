/**
 * Rendering of KotaDB's `index_repository` and `get_index_statistics` answers, and of
 * `list_recent_files` for `/kota status`.
 */
import { arr, listLine, lines, obj, s } from "./text.ts";

/** Renders an index_repository answer. */
export function renderIndexRun(answer: Record<string, unknown>, root: string, ms: number): string {
  const stats = obj(answer.stats);
  return lines(
    `Indexed ${root}: ${s(answer.status) || "done"} in ${(ms / 1000).toFixed(1)}s. ${s(stats.files_indexed)} files, ${s(stats.symbols_extracted)} symbols, ${s(stats.references_extracted)} references.`,
    `Repository id: ${s(answer.repositoryId)}. kota_search, kota_deps, kota_usages, kota_impact and kota_task_context now answer from this index.`,
  );
}

/** One line from get_index_statistics. */
export function renderStatistics(answer: Record<string, unknown>): string {
  return `${s(answer.files)} files, ${s(answer.symbols)} symbols, ${s(answer.references)} references in ${s(answer.repositories)} repositories`;
}

/** The recent files line from list_recent_files. */
export function renderRecentFiles(answer: Record<string, unknown>, cap: number): string | undefined {
  const rows = arr(answer.results).map(obj);
  return listLine(
    "Recently indexed files",
    rows.map((r) => s(r.path)),
    cap,
  );
}

/** Renders statistics and recent files together. */
export function renderIndexOverview(stats: Record<string, unknown> | undefined, recent: Record<string, unknown> | undefined): string {
  return lines(stats ? `Index: ${renderStatistics(stats)}` : undefined, recent ? renderRecentFiles(recent, 8) : undefined);
}
