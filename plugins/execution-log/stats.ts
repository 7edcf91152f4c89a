/**
 * Per-tool statistics from the execution log: counts, p50/p95 latency, timeouts, errors, retries.
 */
import { visible } from "../../lib/visible/index.ts";
import type { SqliteDatabase } from "../../lib/sqlite/index.ts";
import { columnText, MAX_COLUMN_CHARS } from "./columns.ts";
import { TABLE } from "./schema.ts";

/** Tools listed one per line in the table; the rest are summed in one line (a log written before names were bounded may hold thousands). */
export const MAX_TABLE_TOOLS = 200;

/** One tool's line of `pi-governor stats`. Durations in milliseconds. */
export interface ToolStats {
  tool: string;
  calls: number;
  ok: number;
  timeouts: number;
  errors: number;
  /** Retries summed over all calls. */
  retries: number;
  p50Ms: number;
  p95Ms: number;
  /** Most frequent error category, if any call failed. */
  topError: string | undefined;
}

/** Which rows to summarise. */
export interface StatsFilter {
  /** ISO timestamp: only calls started at or after it. */
  since?: string;
  /** Only this tool. */
  tool?: string;
}

/** Nearest-rank percentile of an ascending list (0 for an empty one). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/**
 * A name or category as stats shows it, in the table and in JSON: a log written before rows were
 * redacted and bounded may hold a model's invented name (a token as a name, terminal escapes): it is
 * redacted and bounded as the writer does now (columns.ts), and its control characters made visible.
 */
function shownText(): (text: string) => string {
  const seen = new Map<string, string>();
  return (text) => {
    let out = seen.get(text);
    if (out === undefined) seen.set(text, (out = visible(columnText(text))));
    return out;
  };
}

/** Reads the statistics, one entry per tool, busiest first. Names are shown as {@link shownText} says (two that read the same are one line). */
export function readStats(db: SqliteDatabase, filter: StatsFilter = {}): ToolStats[] {
  const where: string[] = [];
  const params: Record<string, string> = {};
  if (filter.since) {
    where.push("started_at >= @since");
    params.since = filter.since;
  }
  if (filter.tool) {
    where.push("tool_name = @tool");
    params.tool = filter.tool;
  }
  // Names and categories are read cut to the column bound: rows written before it may be far longer.
  const sql = `SELECT substr(tool_name, 1, ${MAX_COLUMN_CHARS}) AS tool_name, status, duration_ms, retries, substr(error_category, 1, ${MAX_COLUMN_CHARS}) AS error_category FROM ${TABLE}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY tool_name`;
  type Row = { tool_name: string; status: string; duration_ms: number | null; retries: number | null; error_category: string | null };
  const byTool = new Map<string, { stats: ToolStats; durations: number[]; categories: Map<string, number> }>();
  const shown = shownText();
  for (const row of db.prepare<Row>(sql).iterate(params)) {
    const tool = shown(row.tool_name);
    let entry = byTool.get(tool);
    if (!entry) {
      entry = {
        stats: { tool, calls: 0, ok: 0, timeouts: 0, errors: 0, retries: 0, p50Ms: 0, p95Ms: 0, topError: undefined },
        durations: [],
        categories: new Map(),
      };
      byTool.set(tool, entry);
    }
    const s = entry.stats;
    s.calls++;
    if (row.status === "SUCCESS") s.ok++;
    else if (row.status === "TIMEOUT_EXCEEDED") s.timeouts++;
    else s.errors++;
    s.retries += row.retries ?? 0;
    if (row.duration_ms !== null) entry.durations.push(row.duration_ms);
    if (row.status === "ERROR" && row.error_category) {
      const category = shown(row.error_category);
      entry.categories.set(category, (entry.categories.get(category) ?? 0) + 1);
    }
  }
  const out: ToolStats[] = [];
  for (const { stats, durations, categories } of byTool.values()) {
    durations.sort((a, b) => a - b);
    stats.p50Ms = percentile(durations, 50);
    stats.p95Ms = percentile(durations, 95);
    stats.topError = [...categories.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    out.push(stats);
  }
  return out.sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
}

/** What the tools past {@link MAX_TABLE_TOOLS} add up to (the table's "(N more tools)" line, JSON's `omitted`), or undefined when none are left out. */
export function omittedTools(
  stats: readonly ToolStats[],
): { tools: number; calls: number; ok: number; timeouts: number; errors: number; retries: number } | undefined {
  const rest = stats.slice(MAX_TABLE_TOOLS);
  if (!rest.length) return undefined;
  const sum = (k: "calls" | "ok" | "timeouts" | "errors" | "retries") => rest.reduce((n, s) => n + s[k], 0);
  return { tools: rest.length, calls: sum("calls"), ok: sum("ok"), timeouts: sum("timeouts"), errors: sum("errors"), retries: sum("retries") };
}

/** Formats the statistics as an aligned text table with a total line. */
export function formatStats(stats: readonly ToolStats[]): string {
  const header = ["tool", "calls", "ok", "timeouts", "errors", "retries", "p50 ms", "p95 ms", "top error"];
  const rows = stats
    .slice(0, MAX_TABLE_TOOLS)
    .map((s) => [s.tool, s.calls, s.ok, s.timeouts, s.errors, s.retries, s.p50Ms, s.p95Ms, s.topError ?? ""].map(String));
  const sum = (k: "calls" | "ok" | "timeouts" | "errors" | "retries") => String(stats.reduce((n, s) => n + s[k], 0));
  const rest = omittedTools(stats);
  if (rest)
    rows.push([
      `(${rest.tools} more tools)`,
      String(rest.calls),
      String(rest.ok),
      String(rest.timeouts),
      String(rest.errors),
      String(rest.retries),
      "",
      "",
      "",
    ]);
  if (stats.length > 1) rows.push(["(all)", sum("calls"), sum("ok"), sum("timeouts"), sum("errors"), sum("retries"), "", "", ""]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/**
 * Parses `--since`: a duration back from `now` (`90s`, `30m`, `12h`, `7d`) or a date/time
 * (`2026-11-01`, an ISO timestamp). Returns an ISO timestamp, or undefined when unreadable.
 */
export function parseSince(text: string, now: number): string | undefined {
  const rel = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/i.exec(text.trim());
  if (rel) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[rel[2]!.toLowerCase() as "s" | "m" | "h" | "d" | "w"];
    return new Date(now - Number(rel[1]) * unit).toISOString();
  }
  const at = Date.parse(text);
  return Number.isFinite(at) ? new Date(at).toISOString() : undefined;
}
