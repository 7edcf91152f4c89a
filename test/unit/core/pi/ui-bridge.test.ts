import { describe, expect, it } from "vitest";
import { commandUiBridgeFrom, uiBridgeFrom } from "../../../../core/pi/ui-bridge.ts";

/** A ctx.ui that records what it was asked to show. */
function recordingCtx(hasUI: boolean) {
  const shown: string[] = [];
  const ui = { notify: (m: string, l: string) => void shown.push(`${l}:${m}`), setStatus: (k: string, t?: string) => void shown.push(`status ${k}=${t}`), confirm: async () => true };
  return { ctx: { hasUI, ui } as never, shown };
}

describe("uiBridgeFrom", () => {
  it("without a UI (print mode) writes warnings to stderr once, with one pi-governor prefix", () => {
    const { ctx, shown } = recordingCtx(false);
    const lines: string[] = [];
    const bridge = uiBridgeFrom(ctx, (t) => void lines.push(t));
    const message = `pi-governor: the blob cache is unwritable (${Math.random()})`;
    bridge.notify(message, "warning");
    bridge.notify(message, "warning");
    bridge.notify("just so you know", "info");
    expect(lines).toEqual([`pi-governor warning: ${message.slice("pi-governor: ".length)}\n`]);
    expect(shown).toEqual([]);
  });

  it("with a UI (interactive, RPC) hands everything to ctx.ui unchanged", async () => {
    const { ctx, shown } = recordingCtx(true);
    const lines: string[] = [];
    const bridge = uiBridgeFrom(ctx, (t) => void lines.push(t));
    bridge.notify("pi-governor: KotaDB is stale", "warning");
    bridge.setStatus("governor", "governor: 1 config problem(s)");
    expect(await bridge.confirm("t", "m")).toBe(true);
    expect(shown).toEqual(["warning:pi-governor: KotaDB is stale", "status governor=governor: 1 config problem(s)"]);
    expect(lines).toEqual([]);
  });
});

describe("commandUiBridgeFrom", () => {
  it("without a UI (print mode) writes every answer of a command to stderr, each time it is asked", () => {
    const { ctx, shown } = recordingCtx(false);
    const lines: string[] = [];
    const bridge = commandUiBridgeFrom(ctx, (t) => void lines.push(t));
    bridge.notify("Pruning: on", "info");
    bridge.notify("Pruning: on", "info");
    bridge.notify("Nothing to pin yet.", "warning");
    expect(lines).toEqual(["Pruning: on\n", "Pruning: on\n", "Nothing to pin yet.\n"]);
    expect(shown).toEqual([]);
  });

  it("with a UI hands the answer to ctx.ui", () => {
    const { ctx, shown } = recordingCtx(true);
    const lines: string[] = [];
    commandUiBridgeFrom(ctx, (t) => void lines.push(t)).notify("Pruning: on", "info");
    expect(shown).toEqual(["info:Pruning: on"]);
    expect(lines).toEqual([]);
  });
});
