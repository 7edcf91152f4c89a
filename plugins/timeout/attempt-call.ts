/**
 * The call context handed below the timeout: the caller's fields, a new object (the pipeline's
 * next-at-most-once rule), and a `signal` made on first read.
 *
 * Why a class with a shared accessor: an object literal with its own getter (`{ ...call, get signal() {} }`)
 * allocates a closure and an accessor pair per call and costs ~0.7 us in V8; one accessor defined
 * with a shared descriptor keeps a stable hidden class and costs about a third of that. The accessor
 * is an OWN enumerable property, so a wrapper below that spreads the context (`{ ...call, args }`)
 * still gets the signal (read at spread time, which creates it).
 */
import type { ContentBlock, ToolCallContext } from "../../core/index.ts";

/** Where the accessor finds the attempt that owns the context. */
const OWNER = Symbol("governor:timeout.attempt");

/** Something that makes the attempt's signal on demand. */
export interface SignalSource {
  signal(): AbortSignal;
}

const SIGNAL_ACCESSOR: PropertyDescriptor = {
  get(this: { [OWNER]: SignalSource }): AbortSignal {
    return this[OWNER].signal();
  },
  enumerable: true,
  configurable: true,
};

/** A {@link ToolCallContext} whose signal comes from `owner` when first read. */
export class AttemptCall implements ToolCallContext {
  declare readonly toolName: string;
  declare readonly toolCallId: string;
  declare readonly args: Readonly<Record<string, unknown>>;
  declare readonly signal: AbortSignal;
  declare readonly attempt: number;
  declare readonly sessionId: string;
  declare readonly startedAt: number;
  declare readonly deadline?: number;
  declare readonly onUpdate?: (partial: { content: ContentBlock[]; details?: Record<string, unknown> }) => void;
  declare readonly [OWNER]: SignalSource;

  constructor(call: ToolCallContext, owner: SignalSource) {
    const self = this as { -readonly [K in keyof AttemptCall]: AttemptCall[K] };
    self.toolName = call.toolName;
    self.toolCallId = call.toolCallId;
    self.args = call.args;
    self.attempt = call.attempt;
    self.sessionId = call.sessionId;
    self.startedAt = call.startedAt;
    // Always present (possibly undefined) so every instance has the same hidden class.
    self.deadline = call.deadline;
    self.onUpdate = call.onUpdate;
    Object.defineProperty(this, "signal", SIGNAL_ACCESSOR);
    self[OWNER] = owner;
  }
}
