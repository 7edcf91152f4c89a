/**
 * `context_fold`: the model folds a range of its finished turns into a summary it writes. The call
 * and its successful result are the fold (folds.ts); this tool only checks the range against the
 * context the model was last sent, keeps the originals byte-exact (one JSON message per line, as a
 * blob when the blobs plugin runs) and says what the fold will do.
 */
import { Type } from "typebox";
import { InvalidInputError, textContent, type GovernedToolDefinition, type ToolExecuteResult } from "../../core/index.ts";
import { messagesChars } from "../../lib/size/index.ts";
import type { BlobStore } from "../../lib/blobs/index.ts";
import { blobReadCall } from "../blobs/index.ts";
import { checkRange, FOLD_TOOL, isProblem } from "./folds.ts";
import type { FoldSession } from "./session.ts";
import { turnLabel } from "./turn-map.ts";

/** Shortest summary the model may fold turns into, in characters. */
export const SUMMARY_MIN_CHARS = 20;
/** Longest summary the model may fold turns into, in characters. */
export const SUMMARY_MAX_CHARS = 8_000;

const parameters = Type.Object({
  from: Type.String({ description: "First tool call id" }),
  to: Type.String({ description: "Last tool call id" }),
  summary: Type.String({
    minLength: SUMMARY_MIN_CHARS,
    maxLength: SUMMARY_MAX_CHARS,
    description: "What was asked, found, decided; paths and names still needed",
  }),
});

const n = (v: number) => v.toLocaleString("en-US");

/** What the tool needs: the session's folding state, the blob store (when there is one), the command root. */
export interface FoldToolDeps {
  session(sessionId: string): FoldSession | undefined;
  /** Where originals are kept (user text, call arguments); the store redacts what it writes. */
  blobs: BlobStore | undefined;
  root: string;
  warn(message: string, data: Record<string, unknown>): void;
}

/** The `context_fold` tool definition. */
export function contextFoldTool(deps: FoldToolDeps): GovernedToolDefinition {
  return {
    name: FOLD_TOOL,
    label: "Fold finished turns",
    description:
      "Replace finished turns (widened to whole turns before the current one) by your own summary from your next request on, to keep the context lean; originals stay retrievable.",
    parameters,
    annotations: { readOnlyHint: false, idempotentHint: false },
    async execute(call): Promise<ToolExecuteResult> {
      const args = call.args as { from?: unknown; to?: unknown; summary?: unknown };
      const from = typeof args.from === "string" ? args.from.trim() : "";
      const to = typeof args.to === "string" ? args.to.trim() : "";
      const summary = typeof args.summary === "string" ? args.summary : "";
      if (!from || !to)
        throw new InvalidInputError("context_fold needs from and to: the ids of the first and last tool calls to fold", {
          agentMessage: 'Pass {"from": "<first call id>", "to": "<last call id>", "summary": "..."}.',
        });
      if (summary.trim().length < SUMMARY_MIN_CHARS || summary.length > SUMMARY_MAX_CHARS) {
        throw new InvalidInputError(`the summary has ${n(summary.length)} chars; it must have ${SUMMARY_MIN_CHARS}-${n(SUMMARY_MAX_CHARS)}`, {
          agentMessage: "Write a summary of what the folded turns found and decided (paths, names, numbers you still need), within the bounds.",
        });
      }
      const session = deps.session(call.sessionId);
      const view = session?.view();
      if (!session || !view?.map.turns.length) {
        throw new InvalidInputError("no conversation is in view yet for this session", {
          agentMessage: "Fold only after earlier turns exist; continue the task.",
        });
      }
      const current = view.map.turns.length - 1;
      const range = checkRange(view.map, from, to, { before: current, folded: [...view.active, ...session.pending] });
      if (isProblem(range)) throw new InvalidInputError(range.problem, { agentMessage: range.fix });

      const first = view.map.turns[range.first]!;
      const last = view.map.turns[range.last]!;
      const originals = view.messages.slice(first.start, last.end);
      const chars = messagesChars(originals);
      session.pending.push({
        call: { id: call.toolCallId, from, to, summary, callMessage: -1, blobId: undefined },
        first: range.first,
        last: range.last,
        start: first.start,
        end: last.end,
        chars,
      });
      let blobId: string | undefined;
      if (deps.blobs) {
        try {
          const text = originals.map((m) => JSON.stringify(m)).join("\n") + "\n";
          blobId = (await deps.blobs.put(text)).id;
        } catch (error) {
          deps.warn("context_fold: the originals could not be stored as a blob; they stay in the session", { error: String(error) });
        }
      }
      const label = turnLabel(first, last);
      const back = blobId ? `${blobReadCall(blobId)} reads them (one message per line)` : "they stay in the session";
      const text =
        `Folded ${label} (${n(originals.length)} messages, ${n(chars)} chars) into your summary. ` +
        `This applies from your next request: those turns are replaced by one message with your summary. ` +
        `The originals stay retrievable: ${back}; the user can restore them with /${deps.root} unfold ${call.toolCallId}.`;
      return {
        content: textContent(text),
        details: { fold: { from, to, turns: [first.ordinal, last.ordinal], messages: originals.length, chars } },
        ...(blobId ? { meta: { blob: { truncated: false, id: blobId } } } : {}),
      };
    },
  };
}
