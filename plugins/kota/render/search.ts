/**
 * `kota_search` rendering of KotaDB's `search` answer, per scope and output mode: paths as a list,
 * compact as `path (n matches)`, snippets grep-style (`line: match`, `line- context`), symbols as
 * `name kind file:line signature`, full as path plus the first lines of content.
 */
import { arr, cut, lines, obj, s } from "./text.ts";

/** Longest code line shown, in characters. */
const MAX_LINE = 160;
/** Lines of file content shown per result in `full` mode. */
const FULL_LINES = 40;

function codeResult(item: unknown): string[] {
  if (typeof item === "string") return [item];
  const r = obj(item);
  if (typeof r.match_count === "number") return [`${s(r.path)} (${r.match_count} matches)`];
  if (Array.isArray(r.matches)) {
    // grep style: `12: match`, `11- context`; lines shared by neighbouring matches once; blank lines dropped.
    const byLine = new Map<number, { text: string; match: boolean }>();
    for (const m of r.matches.map(obj)) {
      const line = Number(m.line);
      const before = arr(m.context_before);
      before.forEach((b, i) => byLine.has(line - before.length + i) || byLine.set(line - before.length + i, { text: s(b), match: false }));
      byLine.set(line, { text: s(m.content), match: true });
      arr(m.context_after).forEach((a, i) => byLine.has(line + 1 + i) || byLine.set(line + 1 + i, { text: s(a), match: false }));
    }
    const rows = [...byLine].filter(([, v]) => v.text.trim()).sort((a, b) => a[0] - b[0]);
    return [`${s(r.path)}:`, ...rows.map(([n, v]) => `  ${n}${v.match ? ":" : "-"} ${cut(v.text, MAX_LINE)}`)];
  }
  if (typeof r.content === "string") {
    const body = r.content.split("\n");
    return [
      `${s(r.path)}:`,
      ...body.slice(0, FULL_LINES).map((l) => `  ${l}`),
      ...(body.length > FULL_LINES ? [`  ... +${body.length - FULL_LINES} lines (read the file for the rest)`] : []),
    ];
  }
  return [s(r.path) || JSON.stringify(r)];
}

function symbolResult(item: unknown): string {
  const r = obj(item);
  const loc = obj(r.location);
  return `${s(r.name)} ${s(r.kind)} ${s(loc.file)}:${s(loc.line_start)}${r.signature ? ` ${cut(s(r.signature), 100)}` : ""}${r.is_exported === false ? " (not exported)" : ""}`;
}

/** Renders a search answer. */
export function renderSearch(answer: Record<string, unknown>): string {
  const results = obj(answer.results);
  const counts = obj(answer.counts);
  const scopes = Object.keys(results);
  const total = typeof counts.total === "number" ? counts.total : scopes.reduce((n, k) => n + arr(results[k]).length, 0);
  const head = `Search "${s(answer.query)}": ${total} result(s)${scopes.length > 1 ? ` (${scopes.map((k) => `${k} ${arr(results[k]).length}`).join(", ")})` : ""}.`;
  if (total === 0) return `${head} Nothing matched. If the repository was never indexed, run kota_index; otherwise try another term or scope ["symbols"].`;
  const body: string[] = [];
  for (const scope of scopes) {
    const items = arr(results[scope]);
    if (!items.length) continue;
    if (scopes.length > 1) body.push(`[${scope}]`);
    if (scope === "code") items.forEach((i) => body.push(...codeResult(i)));
    else if (scope === "symbols") items.forEach((i) => body.push(symbolResult(i)));
    else items.forEach((i) => body.push(cut(typeof i === "string" ? i : JSON.stringify(i), 300)));
  }
  return lines(head, ...body);
}
