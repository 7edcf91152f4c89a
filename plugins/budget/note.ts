import type { Clamp } from "./args.ts";
import { blobMarker } from "../blobs/index.ts";
import type { AnswerSize } from "./measure.ts";

/** One request the downshift issued, with what it changed and how large the answer was. */
export interface Attempted {
  /** `context_lines=1` (what this rung changed), or "" for the original request. */
  change: string;
  /** Size of the answer, or undefined when the request failed. */
  size?: AnswerSize;
  /** Failure category, when the request failed. */
  failed?: string;
}

const n = (x: number) => x.toLocaleString("en-US");

/** `[budget: limit 100 -> 50 (hard cap)]` */
export function clampNote(toolName: string, clamps: readonly Clamp[]): string {
  return `[budget: ${toolName} ${clamps.map((c) => `${c.arg} ${n(c.from)} -> ${n(c.to)}`).join(", ")} (hard cap${clamps.length > 1 ? "s" : ""})]`;
}

/** Most characters of the downshift note's first line (the blob pointer follows on its own line). */
export const NOTE_MAX_CHARS = 149;

/**
 * Bytes a re-issued answer leaves free for what is put in front of it: the note line, the blob
 * pointer line (about 140 bytes) and a clamp note. A quarter of the budget at most.
 */
export const NOTE_RESERVE_BYTES = 400;

/** What {@link downshiftNote} says. */
export interface DownshiftNoteInput {
  toolName: string;
  maxBytes: number;
  /** Bytes of the first, full answer. */
  firstBytes: number;
  /** The shown answer's arguments that differ from the request, e.g. `limit=8, context_lines=1`. */
  shownChange: string;
  shownBytes: number;
  fitted: boolean;
  /** How the model can ask for more; said only when no answer fit. */
  hint: string | undefined;
  /** The stored full answer, when it could be stored. */
  stored?: { id: string; bytes: number };
}

/**
 * What the model is told after a downshift, in one line under {@link NOTE_MAX_CHARS} characters: the
 * full answer's size and the budget, and what the shown answer is. The way back to the full answer
 * (the blob pointer) follows on its own line; the how-to-get-more hint only when nothing fit.
 */
export function downshiftNote(input: DownshiftNoteInput): string {
  const sizes = `answered ${n(input.firstBytes)} bytes, over its ${n(input.maxBytes)}-byte budget; `;
  // A long tool name is left out rather than the line growing (the result already names its tool).
  const head = `[budget: ${input.toolName.length <= 40 ? `${input.toolName} ` : ""}${sizes}`;
  const what = input.fitted ? "shown" : "none fit; smallest shown";
  const tail = ` (${n(input.shownBytes)} bytes)]`;
  const room = NOTE_MAX_CHARS - head.length - what.length - tail.length - 2;
  const change = input.shownChange.length > room ? `${input.shownChange.slice(0, Math.max(room - 1, 0))}…` : input.shownChange;
  const lines = [`${head}${what}${change ? `: ${change}` : ""}${tail}`];
  if (input.stored) lines.push(blobMarker(input.stored.id, input.stored.bytes));
  if (!input.fitted) lines.push(`To get more: ${input.hint ?? "narrow the request, or ask for fewer items at a time"}.`);
  return lines.join("\n");
}
