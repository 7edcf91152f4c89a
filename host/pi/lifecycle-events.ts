/**
 * pi's session, run and turn events: `session_start` / `session_shutdown`, a run's start (only when
 * a prompt, not pi's own retry or continue, led to it: run-boundary.ts), `agent_settled`,
 * `turn_start`, the one `turn_end` handler (the `turnEnd` taps observe; on pi 0.87+ it is also the
 * boundary that takes context edits: context-events.ts) and `before_agent_start` (the injections in
 * front of a prompt).
 */
import type { BoundSession } from "./bound-session.ts";
import { contextEditsAtTurnEnd } from "./context-events.ts";
import type { ToolCallBinding } from "./host-call-events.ts";
import type { PiApi } from "./pi-api.ts";
import { RunBoundary } from "./run-boundary.ts";

/** Binds the session, run and turn events for `session`; a new run lifts a stop (`calls.runStarted`). */
export function bindLifecycle(pi: PiApi, session: BoundSession, calls: ToolCallBinding): void {
  pi.on("session_start", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    await pipeline.hooks.sessionStart.run({ sessionId: session.sessionId, cwd: ctx.cwd, reason: event.reason });
  });

  pi.on("session_shutdown", async (event, ctx) => {
    // The governor in use, never a new one: shutting down must not build anything.
    await session.governor.pipeline.hooks.sessionShutdown.run({ sessionId: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, reason: event.reason });
  });

  // A run is what a prompt starts; pi's own retries and continues inside it are not new runs.
  const runs = new RunBoundary();
  pi.on("agent_start", async (_event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    if (!runs.agentStarted()) return;
    calls.runStarted();
    await pipeline.hooks.runStart.run({ sessionId: session.sessionId });
  });
  // pi 0.87+: pi will not continue by itself; what starts next is a new run.
  pi.on("agent_settled", () => runs.expectNewRun());

  pi.on("turn_start", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    await pipeline.hooks.turnStart.run({ sessionId: session.sessionId, turnIndex: event.turnIndex });
  });

  // The turnEnd taps observe: pi 1.x lets a turn_end handler propose session entries, and what they
  // return is not one. What this handler may add is the contextEdits drafts of pi 0.87+.
  pi.on("turn_end", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    const toolResults = Array.isArray(event.toolResults) ? event.toolResults.length : 0;
    await pipeline.hooks.turnEnd.run({ sessionId: session.sessionId, turnIndex: event.turnIndex, toolResults });
    return contextEditsAtTurnEnd(session, event, ctx);
  });

  pi.on("before_agent_start", async (event, ctx) => {
    runs.expectNewRun();
    const { pipeline } = await session.attach(ctx);
    // pi 1.x also starts runs from custom messages (`sendMessage(..., { triggerTurn })`): no user prompt then.
    const prompt = "prompt" in event && typeof event.prompt === "string" ? event.prompt : "";
    const injections = await pipeline.hooks.beforeAgentStart.run([], {
      prompt,
      cwd: ctx.cwd,
      sessionId: session.sessionId,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (!injections.length) return undefined;
    return {
      message: {
        customType: "pi-governor",
        content: injections.map((i) => i.text).join("\n\n"),
        display: true,
        details: { sources: injections.map((i) => i.source) },
      },
    };
  });
}
