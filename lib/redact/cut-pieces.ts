/**
 * Secrets cut by a tool's own truncation marker. pi's `grep` cuts every line at 500 characters and
 * writes `... [truncated]` right after what it keeps; codemode's output cut and pi 1.x's MCP client
 * write `…N tokens truncated…` / `…N chars truncated…` between a kept head and tail. A cut there may
 * fall inside a token: `key=ghp_AbCd…678... [truncated]` keeps 35 of a GitHub token's 36 characters,
 * which no rule finds (too short), and grep saves no whole output to look it up in (cut-edges.ts does
 * that where pi saved one). A cut secret is a secret: the piece that ends exactly at a marker is
 * hidden when a rule's anchor says what it is.
 *
 * The piece is the run of characters before the marker up to white space, a control character, a
 * bracket or another marker (at most {@link MAX_PIECE_CHARS}). It is hidden when it holds a rule's
 * anchor: for a token rule (a prefix: `ghp_`, `AKIA`, `eyJ`, `sk-`) from the anchor on, when the anchor
 * starts the run or follows a character that is not a letter or digit (`key=ghp_…`, not `task-…`);
 * for a key/value rule (`*_PASSWORD=`, `"API_KEY":`, `://user:`) from after the key's `=` or `:` on.
 * A piece with no anchor of its own whose line holds a key/value rule's anchor within
 * {@link KEY_LOOKBACK_CHARS} before it (`Authorization: Bearer abc…`, `"API_KEY": "q8w…`) is hidden
 * whole. Linear: the runs of different markers do not overlap, and each run and look-back is scanned
 * once for anchors.
 */
import { alternation } from "./anchors.ts";
import type { Span } from "./key-blocks.ts";

/** The markers a cut piece ends at: pi's grep line cut; codemode's, the MCP client's and other middle cuts. */
const MARKER = /\.\.\. \[truncated\]|…[0-9]{1,12} (?:tokens|chars|characters|bytes|lines) truncated…|\[[Oo]utput truncated/g;
const MARKER_AT = new RegExp(MARKER.source, "y");

/** Whether a truncation marker starts at `at` of `text` (where a tool's cut piece ends). */
export function markerAt(text: string, at: number): boolean {
  MARKER_AT.lastIndex = at;
  return MARKER_AT.test(text);
}

/** A text without this holds no marker (one cheap test before the marker scan). */
const MARKER_WORD = "truncated";
/** Longest piece looked at before a marker, in characters (the longest header credential a rule hides). */
export const MAX_PIECE_CHARS = 4096;
/** How far before a piece its line is looked at for a key (`Authorization: Bearer `), in characters. */
export const KEY_LOOKBACK_CHARS = 64;

/** What a cut piece is judged by: a rule's name, its anchors, and whether it keeps a key before the value. */
export interface CutRule {
  name: string;
  anchors: readonly string[];
  /** A key/value rule: its anchor is in the key and the secret is what follows `=` or `:`. */
  keyed: boolean;
}

/** Finds the pieces of secrets a truncation marker cut (see the module comment). */
export class CutPieces {
  private readonly byAnchor = new Map<string, CutRule>();
  private readonly anchors: RegExp | undefined;
  private readonly keyAnchors: RegExp | undefined;

  /** `rules` in priority order: where two share an anchor the first names the piece. */
  constructor(rules: readonly CutRule[]) {
    for (const rule of rules) for (const a of rule.anchors) if (a && !this.byAnchor.has(a)) this.byAnchor.set(a, rule);
    const all = [...this.byAnchor.keys()];
    const keyed = all.filter((a) => this.byAnchor.get(a)!.keyed);
    this.anchors = all.length ? alternation(all) : undefined;
    this.keyAnchors = keyed.length ? alternation(keyed) : undefined;
  }

  /** Spans of `text` that hold a piece of a secret ending at a truncation marker, named by rule. */
  spans(text: string): Array<Span & { rule: string }> {
    const out: Array<Span & { rule: string }> = [];
    if (!this.anchors || !text.includes(MARKER_WORD)) return out;
    let bound = 0;
    MARKER.lastIndex = 0;
    for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
      const at = m.index;
      const floor = Math.max(bound, at - MAX_PIECE_CHARS);
      bound = at + m[0].length;
      let start = at;
      while (start > floor && pieceChar(text.charCodeAt(start - 1))) start--;
      if (start === at) continue;
      const span = this.pieceSpan(text, start, at) ?? this.afterKey(text, Math.max(floor, start - KEY_LOOKBACK_CHARS), start, at);
      if (span) out.push(span);
    }
    return out;
  }

  /** The secret in the piece [start, at) by an anchor of its own, or undefined. */
  private pieceSpan(text: string, start: number, at: number): (Span & { rule: string }) | undefined {
    const piece = text.slice(start, at);
    const re = this.anchors!;
    re.lastIndex = 0;
    for (let m = re.exec(piece); m !== null; m = re.exec(piece)) {
      const rule = this.byAnchor.get(m[0])!;
      const anchorEnd = m.index + m[0].length;
      if (rule.keyed) {
        // The value after the key's `=` or `:` (and an opening quote).
        let v = anchorEnd;
        while (v < piece.length && piece[v] !== "=" && piece[v] !== ":") v++;
        if (v === piece.length) continue;
        v++;
        while (v < piece.length && (piece[v] === '"' || piece[v] === "'" || piece[v] === "=" || piece[v] === ">")) v++;
        if (v < piece.length) return { rule: rule.name, start: start + v, end: at };
        continue;
      }
      if (m.index > 0 && alnum(piece.charCodeAt(m.index - 1))) {
        re.lastIndex = m.index + 1;
        continue;
      }
      return { rule: rule.name, start: start + m.index, end: at };
    }
    return undefined;
  }

  /** The piece [start, at) whole when a key/value rule's anchor stands on its line in [from, start), or undefined. */
  private afterKey(text: string, from: number, start: number, at: number): (Span & { rule: string }) | undefined {
    if (!this.keyAnchors || from >= start) return undefined;
    let before = text.slice(from, start);
    const newline = before.lastIndexOf("\n");
    if (newline !== -1) before = before.slice(newline + 1);
    this.keyAnchors.lastIndex = 0;
    const m = this.keyAnchors.exec(before);
    if (!m) return undefined;
    let s = start;
    while (s < at && (text[s] === '"' || text[s] === "'")) s++;
    return s < at ? { rule: this.byAnchor.get(m[0])!.name, start: s, end: at } : undefined;
  }
}

/** A character a token piece may hold: not white space, a control character or a bracket (a placeholder's). */
function pieceChar(code: number): boolean {
  return code > 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0xa0) && code !== 0x5b && code !== 0x5d && code !== 0x2026 && code !== 0x3000;
}

function alnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
