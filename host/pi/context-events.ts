/**
 * The context event: the messages about to go to the model run through the `context` stages (the
 * session keeps the full history), with the model, pi's usage estimate, the prompt cache
 * (prompt-cache.ts) and, on pi 0.87+, the session's entries and records. On those lines the end of a
 * turn is also where what the stages did is kept: `contextEdits` drafts appended to the boundary's
 * entries (core/context-edits.ts); lifecycle-events.ts calls that from its one `turn_end` handler.
 */
import type { BoundSession } from "./bound-session.ts";
import type { ToolCallBinding } from "./host-call-events.ts";
import type { PiApi, PiContext, PiTurnEndEvent } from "./pi-api.ts";
import type { PromptCacheBinding } from "./prompt-cache.ts";
import { appliesContextEdits, sessionMessageEntries, sessionRecords } from "./session-entries.ts";

/** Binds `context` for `session`; a stop a gate stage asked for aborts the run there (run-stop.ts). */
export function bindContext(pi: PiApi, session: BoundSession, calls: ToolCallBinding, cache: PromptCacheBinding): void {
  pi.on("context", async (event, ctx) => {
    if (calls.stopBeforeRequest()) {
      ctx.abort();
      return undefined;
    }
    // Re-attach here too: after /reload without UI bindings pi emits no session_start, and the
    // context plugins' session records (the pruning boundary, pins) must come from this session.
    const { pipeline } = await session.attach(ctx);
    const usage = ctx.getContextUsage();
    const model = ctx.model;
    const sm = ctx.sessionManager;
    const promptCache = cache.promptCache(ctx);
    const messages = await pipeline.hooks.context.run(event.messages, {
      sessionId: sm.getSessionId(),
      ...(usage ? { usage } : {}),
      ...(model ? { model: { provider: String(model.provider), id: model.id } } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(appliesContextEdits(sm) ? { sessionEntries: () => sessionMessageEntries(sm), sessionRecords: (kind: string) => sessionRecords(sm, kind) } : {}),
      ...(promptCache ? { promptCache } : {}),
    });
    return messages === event.messages ? undefined : { messages };
  });
}

/**
 * The entries a `turn_end` boundary ends with (pi 0.87+, where `turn_end` carries `entries` and
 * `context` and a session manager builds a projection): the entries proposed so far, then the
 * `contextEdits` drafts. Undefined when nothing runs there (older lines, a turn that did not
 * complete, no tap) or no tap adds anything: pi then keeps its proposal.
 */
export async function contextEditsAtTurnEnd(session: BoundSession, event: PiTurnEndEvent, ctx: PiContext): Promise<{ entries: unknown[] } | undefined> {
  if (!Array.isArray(event.entries) || !Array.isArray(event.context?.contextEntries)) return undefined;
  const sm = ctx.sessionManager;
  if (event.outcome !== "completed" || !appliesContextEdits(sm)) return undefined;
  const { pipeline } = await session.attach(ctx);
  if (!pipeline.hooks.contextEdits.taps().length) return undefined;
  const proposed: unknown[] = event.entries;
  const drafts = await pipeline.hooks.contextEdits.run([], {
    sessionId: session.sessionId,
    turnIndex: event.turnIndex ?? 0,
    entries: () => sessionMessageEntries(sm, proposed),
    records: (kind: string) => sessionRecords(sm, kind),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  // Only what this handler adds; the entries proposed so far are kept, as pi's docs require.
  return drafts.length ? { entries: [...proposed, ...drafts] } : undefined;
}
