import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { SessionStore, UiBridge } from "../services.ts";

/** Wraps pi's ctx.ui; without a UI (print/RPC mode) confirmations resolve false and nothing is shown. */
export function uiBridgeFrom(ctx: Pick<ExtensionContext, "ui" | "hasUI">): UiBridge {
  const ui = ctx.ui;
  return {
    hasUI: ctx.hasUI,
    notify: (message, level = "info") => ui.notify(message, level),
    setStatus: (key, text) => ui.setStatus(key, text),
    confirm: (title, message) => (ctx.hasUI ? ui.confirm(title, message) : Promise.resolve(false)),
  };
}

/** Session records as pi custom entries (persisted in the session file, never sent to the model). */
export function sessionStoreFrom(pi: Pick<ExtensionAPI, "appendEntry">, ctx: Pick<ExtensionContext, "sessionManager">): SessionStore {
  return {
    append: (kind, data) => pi.appendEntry(kind, data),
    entries: (kind) =>
      ctx.sessionManager
        .getEntries()
        .filter((e) => e.type === "custom" && (e as { customType?: string }).customType === kind)
        .map((e) => ((e as { data?: Record<string, unknown> }).data ?? {})),
  };
}
