/**
 * What recall can show the user: how much tool output is kept out of the model's context right now
 * (cut to an excerpt by blobs, replaced by a placeholder by prune) and still searchable, per tool.
 * Measured on the message list of each model call, after pruning; tokens are characters / 4, the
 * scale the prune plugin uses.
 */
import { messageMeta, type AgentMessageLike } from "../../core/index.ts";
import { estimateTokens } from "../../lib/size/index.ts";

/** Sizes remembered per tool call (bounded: the oldest are forgotten first). */
const MAX_REMEMBERED = 50_000;

/** Characters kept out of the context, per tool. */
export interface SavingsReport {
  /** Characters of tool output not in the context (original minus what the model sees). */
  keptOutChars: number;
  perTool: Map<string, { results: number; keptOutChars: number }>;
  /** The user turn of the message list: the number of user messages in it. */
  turn: number;
}

/** Remembers each result's full size and measures, per model call, how much of it the context leaves out. */
export class SavingsTracker {
  private readonly sizes = new Map<string, number>();
  /** The latest report (after the last model call), undefined before one. */
  last: SavingsReport | undefined;

  /** Remembers the original size of a result (characters of its text). */
  remember(toolCallId: string, chars: number): void {
    if (!toolCallId) return;
    this.sizes.delete(toolCallId);
    this.sizes.set(toolCallId, chars);
    if (this.sizes.size > MAX_REMEMBERED) this.sizes.delete(this.sizes.keys().next().value!);
  }

  /** Original characters of a result, when known: details of a cut result, else what was remembered. */
  originalChars(message: AgentMessageLike): number | undefined {
    const blob = messageMeta(message).blob;
    if (blob?.truncated && blob.originalBytes !== undefined) return blob.originalBytes;
    return typeof message.toolCallId === "string" ? this.sizes.get(message.toolCallId) : undefined;
  }

  /** Measures one message list (what the model is about to get). */
  measure(messages: readonly AgentMessageLike[]): SavingsReport {
    const perTool = new Map<string, { results: number; keptOutChars: number }>();
    let keptOutChars = 0;
    let turn = 0;
    for (const m of messages) {
      if (m.role === "user") turn++;
      if (m.role !== "toolResult") continue;
      const r = m as { toolName?: unknown; toolCallId?: unknown; details?: unknown; content?: unknown };
      const original = this.originalChars(m);
      if (original === undefined) continue;
      const seen = Array.isArray(r.content)
        ? (r.content as Array<{ type?: string; text?: unknown }>).reduce((s, b) => s + (b.type === "text" && typeof b.text === "string" ? b.text.length : 0), 0)
        : 0;
      const out = Math.max(0, original - seen);
      if (!out) continue;
      keptOutChars += out;
      const tool = String(r.toolName ?? "?");
      const t = perTool.get(tool) ?? { results: 0, keptOutChars: 0 };
      t.results++;
      t.keptOutChars += out;
      perTool.set(tool, t);
    }
    this.last = { keptOutChars, perTool, turn };
    return this.last;
  }
}

/** Footer text: `recall: ~12,345 tokens kept out`. */
export function statusText(report: SavingsReport | undefined, indexed: number): string | undefined {
  if (!report) return undefined;
  const n = (v: number) => v.toLocaleString("en-US");
  return `recall: ~${n(estimateTokens(report.keptOutChars))} tokens kept out, ${n(indexed)} outputs searchable`;
}

/** Multi-line breakdown per tool, most saved first. */
export function savingsLines(report: SavingsReport | undefined): string[] {
  if (!report) return ["No model call seen in this session yet."];
  const n = (v: number) => v.toLocaleString("en-US");
  const lines = [
    `Kept out of the context at the last model call: ~${n(estimateTokens(report.keptOutChars))} tokens (${n(report.keptOutChars)} chars), all searchable with context_search.`,
  ];
  for (const [tool, t] of [...report.perTool.entries()].sort((a, b) => b[1].keptOutChars - a[1].keptOutChars)) {
    lines.push(`  ${tool}: ${t.results} result(s), ~${n(estimateTokens(t.keptOutChars))} tokens`);
  }
  return lines;
}
