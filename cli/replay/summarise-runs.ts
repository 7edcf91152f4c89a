/**
 * Summarise each run: the approach of pruning extensions that summarise tool output with a model
 * (pi-context-prune's default "agent-message" mode), as a replay policy to compare against.
 *
 * When a run ends (the agent's final reply; seen here when the next prompt comes), the tool results of
 * the run are summarised by one model call to the same model, and in every later request each of
 * them is replaced by a short stub naming how to get the original back, while a hidden summary
 * message follows the run's last message. Tool calls stay (their ids must keep their results). A run
 * is summarised once; its stubs and summary stay byte-identical afterwards, so the prompt cache
 * breaks once per run, at the first stub.
 *
 * The summariser is a model call of its own, priced as pi-ai sends it: the serialized batch (an
 * instruction, each call's name, arguments and result text) as input written to the cache (1.25x,
 * nothing of it cached before), and the summary as output at the output price (Anthropic: 5x input).
 * The summary is about 1-3 bullets per call: 60 characters plus 220 per call, and never longer than
 * the results it replaces (the extension skips a batch whose summary would be longer).
 */
import type { AgentMessageLike } from "../../core/index.ts";
import { estimateTokens as tokensOf } from "../../lib/size/index.ts";
import { CACHE_PRICING } from "../../plugins/prune/index.ts";
import type { Policy, PolicyRun } from "./policies.ts";

/** Characters of the summariser's instruction around the serialized batch. */
const INSTRUCTION_CHARS = 420;
/** Summary size: a header and 1-3 bullets per tool call. */
const SUMMARY_BASE_CHARS = 60;
const SUMMARY_PER_CALL_CHARS = 220;
/** Output tokens cost this many input tokens (Anthropic's price ratio). */
export const OUTPUT_PRICE_RATIO = 5;

const textOf = (m: AgentMessageLike): string =>
  typeof m.content === "string"
    ? m.content
    : Array.isArray(m.content)
      ? (m.content as Array<{ text?: unknown }>).map((b) => (typeof b?.text === "string" ? b.text : "")).join("\n")
      : "";

/** A run of the history: from its user message to the message before the next one. */
interface RunRange {
  from: number;
  to: number;
}

/** Summarised runs, keyed by the run's user message object. */
interface Summarised {
  /** The replacement of each tool result of the run, by index. */
  stubs: Map<number, AgentMessageLike>;
  /** The hidden summary message placed after the run. */
  summary: AgentMessageLike | undefined;
}

function runsOf(messages: readonly AgentMessageLike[]): RunRange[] {
  const starts: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === "user") starts.push(i);
  });
  return starts.map((from, k) => ({ from, to: k + 1 < starts.length ? starts[k + 1]! : messages.length }));
}

/** The summarise-each-run policy (see the module comment). */
export function summariseEachRun(): Policy {
  return {
    name: "summarise each run",
    async start() {
      const done = new WeakMap<object, Summarised>();
      let sideCost = 0;
      const summarise = (messages: readonly AgentMessageLike[], run: RunRange): Summarised => {
        const stubs = new Map<number, AgentMessageLike>();
        let serialized = INSTRUCTION_CHARS;
        let rawChars = 0;
        let calls = 0;
        for (let i = run.from; i < run.to; i++) {
          const m = messages[i]!;
          if (m.role !== "toolResult") continue;
          const id = String((m as { toolCallId?: unknown }).toolCallId ?? "");
          const text = textOf(m);
          calls++;
          rawChars += text.length;
          serialized += text.length + 120;
          stubs.set(i, { ...m, content: [{ type: "text", text: `[summarized; context_tree_query({"toolCallIds":["${id}"]}) returns the original]` }] });
        }
        if (!calls) return { stubs, summary: undefined };
        const summaryChars = SUMMARY_BASE_CHARS + SUMMARY_PER_CALL_CHARS * calls;
        // The extension keeps a batch whose summary would be longer than its results.
        if (summaryChars > rawChars) return { stubs: new Map(), summary: undefined };
        sideCost += tokensOf(serialized) * CACHE_PRICING.write + tokensOf(summaryChars) * OUTPUT_PRICE_RATIO;
        const summary: AgentMessageLike = {
          role: "custom",
          customType: "context-prune-summary",
          display: false,
          content: `Summary of ${calls} tool call(s): ${"- one finding of the batch. ".repeat(Math.ceil(summaryChars / 28))}`.slice(0, summaryChars),
        };
        return { stubs, summary };
      };
      const run: PolicyRun = async (messages) => {
        const runs = runsOf(messages);
        // Every run but the last is finished (the agent replied and the user prompted again).
        const out: AgentMessageLike[] = [];
        let next = 0;
        for (let k = 0; k < runs.length; k++) {
          const r = runs[k]!;
          while (next < r.from) out.push(messages[next++]!);
          if (k === runs.length - 1) break;
          const key = messages[r.from]!;
          let s = done.get(key);
          if (!s) done.set(key, (s = summarise(messages, r)));
          for (let i = r.from; i < r.to; i++) out.push(s.stubs.get(i) ?? messages[i]!);
          if (s.summary) out.push(s.summary);
          next = r.to;
        }
        while (next < messages.length) out.push(messages[next++]!);
        return out;
      };
      run.takeSideCost = () => {
        const cost = sideCost;
        sideCost = 0;
        return cost;
      };
      return run;
    },
  };
}
