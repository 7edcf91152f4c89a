import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { UiBridge } from "../services.ts";

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
