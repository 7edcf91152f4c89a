/**
 * The compact answer of a search: per hit the tool and its arguments, the turn, how long ago, the
 * line range, a highlighted snippet, and the exact `blob_read` call that opens those lines. Bounded
 * to a byte budget: hits that do not fit are counted, never cut mid-line.
 */
import { blobReadCall as readCall } from "../blobs/index.ts";
import type { SearchHit } from "./index-store.ts";

/** Longest snippet shown per hit, in characters. */
const SNIPPET_CHARS = 200;

/** "12 s", "5 min", "3 h", "2 d" ago. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** The blob_read call that opens a hit's lines. */
export function blobReadCall(hit: Pick<SearchHit, "blobId" | "firstLine" | "lastLine">): string {
  return readCall(hit.blobId, { offset: hit.firstLine, limit: hit.lastLine - hit.firstLine + 1 });
}

/** One hit as three lines. `index` is 1-based. */
export function formatHit(hit: SearchHit, index: number, nowMs: number, showSession: boolean): string {
  const snippet = hit.snippet
    .replace(/\s*\n\s*/g, " ⏎ ")
    .replace(/\s+/g, " ")
    .trim();
  const cut = snippet.length > SNIPPET_CHARS ? `${snippet.slice(0, SNIPPET_CHARS - 1)}...` : snippet;
  const where = [`turn ${hit.turn}`, ago(nowMs - hit.atMs), `lines ${hit.firstLine}-${hit.lastLine} of ${hit.lines}`];
  if (hit.isError) where.push("error");
  if (showSession) where.push(`session ${hit.sessionId.slice(0, 8)}`);
  return `${index}. ${hit.args} · ${where.join(" · ")}\n   ${cut}\n   ${blobReadCall(hit)}`;
}

/** The whole answer, at most `maxBytes` UTF-8 bytes (the header always fits). */
export function formatHits(
  query: string,
  hits: readonly SearchHit[],
  options: { nowMs: number; maxBytes: number; relaxed: boolean; scope: string; showSession?: boolean },
): string {
  const shownQuery = JSON.stringify(query.length > 100 ? `${query.slice(0, 99)}...` : query);
  if (!hits.length) return `No earlier output matches ${shownQuery} (scope: ${options.scope}). Try other words, a part of an identifier, or scope "project".`;
  const head = `${hits.length} output(s) match ${shownQuery}${options.relaxed ? " (not every word matched)" : ""}, best first (scope: ${options.scope}):`;
  let out = head;
  const more = (n: number) => `\n[${n} more not shown: narrow the query or pass tool]`;
  for (const [i, hit] of hits.entries()) {
    const block = `\n${formatHit(hit, i + 1, options.nowMs, options.showSession ?? false)}`;
    const rest = hits.length - i - 1;
    // Room for this hit and, when more follow, for the line that says so.
    if (i > 0 && Buffer.byteLength(out + block + (rest ? more(rest) : ""), "utf8") > options.maxBytes) return out + more(hits.length - i);
    out += block;
  }
  return out;
}
