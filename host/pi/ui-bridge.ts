import type { SessionStore, UiBridge } from "../../core/services.ts";
import { visible, visibleLines } from "../../lib/visible/index.ts";
import type { PiApi, PiContext } from "./pi-api.ts";

/** Print-mode notices already written, so each appears once per process. */
const shownOnStderr = new Set<string>();

/**
 * The prefix plugins put in front of their notices (`pi-governor:`, `pi-governor recall:`); the
 * stderr line is `pi-governor [part] <level>: <text>` instead, so the name is never doubled.
 */
const OWN_PREFIX = /^pi-governor(?: ([a-z][\w-]*))?:\s*/;

/**
 * Wraps pi's ctx.ui. With a UI (interactive, and RPC mode, where pi forwards `notify`/`setStatus`
 * to the client as `extension_ui_request` lines) everything goes to ctx.ui. Without one (print mode,
 * an SDK session without a UI context) confirmations resolve false (select and editor undefined), and warnings and errors go to
 * stderr once each as `pi-governor <level>: <text>` (pi shows nothing otherwise, and a missing Bun
 * or a bad config must never be silent). Every text is shown with its control characters made
 * visible ({@link visibleLines}): notices quote config keys, server names and tool output, and an
 * escape sequence in them must not reach the terminal. `stderr` is injectable for tests.
 */
export function uiBridgeFrom(ctx: Pick<PiContext, "ui" | "hasUI">, stderr: (text: string) => void = (t) => process.stderr.write(t)): UiBridge {
  const ui = ctx.ui;
  return {
    hasUI: ctx.hasUI,
    notify: (raw, level = "info") => {
      const message = visibleLines(raw);
      if (ctx.hasUI) ui.notify(message, level);
      else if (level !== "info" && !shownOnStderr.has(message)) {
        shownOnStderr.add(message);
        const part = OWN_PREFIX.exec(message)?.[1];
        stderr(`pi-governor ${part ? `${part} ` : ""}${level}: ${message.replace(OWN_PREFIX, "")}\n`);
      }
    },
    setStatus: (key, text) => ui.setStatus(key, text === undefined ? undefined : visible(text)),
    confirm: (title, message) => (ctx.hasUI ? ui.confirm(visible(title), visibleLines(message)) : Promise.resolve(false)),
    select: (title, options) => (ctx.hasUI ? ui.select(visibleLines(title), options.map(visible)) : Promise.resolve(undefined)),
    editor: (title, text) => (ctx.hasUI ? ui.editor(visible(title), visibleLines(text)) : Promise.resolve(undefined)),
  };
}

/**
 * The UI a command handler gets. A command is the user's own question, so its answer reaches them in
 * every mode: with a UI as {@link uiBridgeFrom}; without one (print mode, where pi shows no
 * notification) every answer of any level goes to stderr as it is, each time it is asked (never
 * deduplicated like load notices). `stderr` is injectable for tests.
 */
export function commandUiBridgeFrom(ctx: Pick<PiContext, "ui" | "hasUI">, stderr: (text: string) => void = (t) => process.stderr.write(t)): UiBridge {
  const bridge = uiBridgeFrom(ctx, stderr);
  if (ctx.hasUI) return bridge;
  return {
    ...bridge,
    notify: (raw) => {
      const message = visibleLines(raw);
      stderr(message.endsWith("\n") ? message : `${message}\n`);
    },
  };
}

/** Session records as pi custom entries (persisted in the session file, never sent to the model). */
export function sessionStoreFrom(pi: Pick<PiApi, "appendEntry">, ctx: Pick<PiContext, "sessionManager">): SessionStore {
  return {
    append: (kind, data) => pi.appendEntry(kind, data),
    entries: (kind) =>
      ctx.sessionManager
        .getEntries()
        .filter((e) => e.type === "custom" && e.customType === kind)
        .map((e) => (e.data ?? {}) as Record<string, unknown>),
  };
}
