/**
 * Repeated calls: a read-only governed tool called again in the user's turn (the run one prompt
 * starts: every model request and call it leads to) with the same arguments is answered from the
 * first result, unless a call that may change something ran in between (an edit,
 * a write, bash, any tool not marked read-only). The answer says which call it repeats, so the model
 * notices the loop. Only governed tools can be answered without running (pi runs its own tools).
 *
 * Fresh, never stale: a result is remembered only when no call that may change anything ran at any
 * moment of it (the {@link ChangeWatch}: pi runs a batch's calls in parallel), and such a call clears
 * the memory when it starts and again when it ends. After a call whose work may outlast it (`bash`,
 * an MCP server's tool, another extension's tool: every change but pi's `edit` and `write` and
 * pi-governor's own tools), nothing more is remembered in that run. A message from the user inside
 * the run (a steer, a follow-up) clears the memory too: the user may have changed anything. Only tools whose answer nothing else moves are
 * remembered: read-only and closed-world (an open-world tool reads a web that changes on its own),
 * and not pi-governor's own stores (`context_search` reads an index every call adds to).
 */
import { type ContentBlock, success, type ToolHandler, type ToolInfo, type ToolObservation } from "../../core/index.ts";
import { contentBytes } from "../../lib/size/index.ts";
import { REHYDRATION_TAG } from "../../lib/tags/index.ts";
import { canonicalJson } from "../../lib/json/index.ts";
import type { ChangeWatch } from "./change-watch.ts";

/** Bounds of the per-turn memory. */
export interface RepeatedCallLimits {
  /** Results kept per run. */
  maxEntries: number;
  /** Largest result kept, in bytes of content. */
  maxBytes: number;
}

interface Remembered {
  toolCallId: string;
  content: ContentBlock[];
}

/** One session's memory of the current run's read-only results. */
export class TurnResults {
  private readonly byKey = new Map<string, Remembered>();

  constructor(private readonly limits: RepeatedCallLimits) {}

  /** A new run, or a call that may have changed what earlier answers said. */
  forget(): void {
    this.byKey.clear();
  }

  recall(key: string): Remembered | undefined {
    return this.byKey.get(key);
  }

  remember(key: string, toolCallId: string, content: ContentBlock[]): void {
    if (this.byKey.size >= this.limits.maxEntries || contentBytes(content) > this.limits.maxBytes) return;
    this.byKey.set(key, { toolCallId, content });
  }
}

/** The memory key of a call: tool and canonical arguments; undefined when the arguments have none. */
export function repeatKey(toolName: string, args: Readonly<Record<string, unknown>>): string | undefined {
  const json = canonicalJson(args);
  return json === undefined ? undefined : `${toolName}\u0000${json}`;
}

/**
 * pi's tools whose work is done when they end (a file edited or written). pi-governor's own tools
 * (`kota_index` waits for the index) are done too. Any other call that may change something may leave
 * work running after it ends: `bash` can start a background job, an MCP server or another extension
 * can keep working. After one, the run remembers nothing more.
 */
const DONE_WHEN_ENDED: ReadonlySet<string> = new Set(["edit", "write"]);

/** Whether the work of a call that may change something can outlast its end (see {@link DONE_WHEN_ENDED}). */
export function lingers(call: { toolName: string; governed: boolean; mcp?: unknown }): boolean {
  if (call.mcp) return true;
  return call.governed ? false : !DONE_WHEN_ENDED.has(call.toolName);
}

/** Whether a repeat of `tool` may be answered from memory: read-only, closed-world, not one of pi-governor's own stores. */
export function rememberable(tool: ToolInfo): boolean {
  return tool.annotations.readOnlyHint === true && tool.annotations.openWorldHint === false && !tool.tags.includes(REHYDRATION_TAG);
}

/** One session's memory and what may change under it. */
export interface RepeatState {
  results: TurnResults;
  watch: ChangeWatch;
}

/**
 * The tool-call wrapper: stays out of tools that are not {@link rememberable}; for the others
 * answers a repeat from the run's memory while no change runs, and remembers a successful answer
 * only when no change overlapped it.
 */
export function repeatedCallWrapper(stateOf: (sessionId: string) => RepeatState): (next: ToolHandler, tool: ToolInfo) => ToolHandler {
  return (next, tool) => {
    if (!rememberable(tool)) return next;
    return async (call) => {
      const key = repeatKey(call.toolName, call.args);
      if (key === undefined) return next(call);
      const { results, watch } = stateOf(call.sessionId);
      const mark = watch.mark();
      const earlier = mark === undefined ? undefined : results.recall(key);
      if (earlier) return answeredFrom(call.toolName, earlier);
      const obs = await next(call);
      if (obs.status === "SUCCESS" && watch.quietSince(mark)) results.remember(key, call.toolCallId, obs.content);
      return obs;
    };
  };
}

function answeredFrom(toolName: string, earlier: Remembered): ToolObservation {
  const note: ContentBlock = {
    type: "text",
    text: `(Same ${toolName} call and arguments as ${earlier.toolCallId || "an earlier call"} earlier in this turn, and nothing since could have changed the answer: answered from that result without running it again.)`,
  };
  return success(toolName, [note, ...earlier.content]);
}
