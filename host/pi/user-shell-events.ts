/**
 * What the user does that may change anything, reported to the pipeline (the policies' repeated-call
 * memory forgets): each `user_bash` pi announces and each command pi recorded in the session that no
 * `user_bash` announced (`unseen`: see user-shell.ts) as `host_user_shell`; a message from the user
 * (a prompt, a steer or follow-up inside a run) as `host_user_message`. Bound before the lifecycle
 * handlers of the same events, so a run's or a turn's stages already know.
 */
import type { BoundSession } from "./bound-session.ts";
import type { PiApi, PiContext } from "./pi-api.ts";
import { UserShellWatch } from "./user-shell.ts";

/** Binds `user_bash`, and the looks for unseen commands at `session_start`, `agent_start` and `turn_start`. */
export function bindUserShell(pi: PiApi, session: BoundSession): void {
  // An observer: it returns nothing, so pi runs the command as it would without pi-governor.
  const userShell = new UserShellWatch();
  pi.on("user_bash", async (event, ctx) => {
    const { pipeline } = await session.attach(ctx);
    userShell.announce(typeof event.command === "string" ? event.command : "");
    pipeline.emit({ type: "host_user_shell", sessionId: session.sessionId });
    return undefined;
  });
  // Commands pi-governor did not see start, found where pi records them (user-shell.ts): looked for
  // before each run and each model request, so no remembered answer outlives the news of one.
  const lookForUnseenCommands = async (ctx: PiContext) => {
    const unseen = userShell.unseen(ctx.sessionManager);
    if (!unseen) return;
    const { pipeline } = await session.attach(ctx);
    pipeline.emit({ type: "host_user_shell", sessionId: session.sessionId, unseen: true });
  };
  // A message from the user inside a run (steer, follow-up): pi 1.x reports it on arrival (`input`),
  // every pi line when it joins the conversation (`message_start` of a user message), and while it
  // waits (each `tool_call`, host-call-events.ts: pi 0.73's steer and follow-up have no `input`
  // event). Observers: they return nothing, so the message is unchanged.
  const userMessage = async (ctx: PiContext) => {
    const { pipeline } = await session.attach(ctx);
    pipeline.emit({ type: "host_user_message", sessionId: session.sessionId });
  };
  pi.on("input", (_event, ctx) => userMessage(ctx));
  pi.on("message_start", async (event, ctx) => {
    if (event.message?.role === "user") await userMessage(ctx);
  });
  pi.on("session_start", (_event, ctx) => userShell.reset(ctx.sessionManager));
  pi.on("agent_start", (_event, ctx) => lookForUnseenCommands(ctx));
  pi.on("turn_start", (_event, ctx) => lookForUnseenCommands(ctx));
}
