/**
 * Repeated calls: a read-only governed tool called again in the user's turn (the run one prompt
 * starts: every model request and call it leads to) with the same arguments is answered from the
 * first result, unless a call that may change something ran in between (an edit,
 * a write, bash, any tool not marked read-only). The answer says which call it repeats, so the model
 * notices the loop. Only governed tools can be answered without running (pi runs its own tools).
 */
import { contentBytes, type ContentBlock, success, type ToolHandler, type ToolInfo, type ToolObservation } from "../../core/sdk.ts";
import { canonicalJson } from "../../lib/json/index.ts";

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
 * The tool-call wrapper: stays out of tools that are not read-only; for read-only ones answers a
 * repeat from `turnOf(sessionId)` (the run's memory) and remembers successful first answers.
 */
export function repeatedCallWrapper(turnOf: (sessionId: string) => TurnResults): (next: ToolHandler, tool: ToolInfo) => ToolHandler {
  return (next, tool) => {
    if (tool.annotations.readOnlyHint !== true) return next;
    return async (call) => {
      const key = repeatKey(call.toolName, call.args);
      if (key === undefined) return next(call);
      const turn = turnOf(call.sessionId);
      const earlier = turn.recall(key);
      if (earlier) return answeredFrom(call.toolName, earlier);
      const obs = await next(call);
      if (obs.status === "SUCCESS") turn.remember(key, call.toolCallId, obs.content);
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
