/**
 * The user's shell commands, reported to the pipeline as `host_user_shell` events (a command may
 * change files: the policies' repeated-call memory forgets): each `user_bash` pi announces, and each
 * command pi recorded in the session that no `user_bash` announced (`unseen`: see user-shell.ts).
 * Bound before the lifecycle handlers of the same events, so a run's or a turn's stages already know.
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
  pi.on("session_start", (_event, ctx) => userShell.reset(ctx.sessionManager));
  pi.on("agent_start", (_event, ctx) => lookForUnseenCommands(ctx));
  pi.on("turn_start", (_event, ctx) => lookForUnseenCommands(ctx));
}
