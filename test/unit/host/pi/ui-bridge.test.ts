import { describe, expect, it } from "vitest";
import { commandUiBridgeFrom, uiBridgeFrom } from "../../../../host/pi/ui-bridge.ts";

/** A ctx.ui that records what it was asked to show. */
function recordingCtx(hasUI: boolean) {
  const shown: string[] = [];
  const ui = {
    notify: (m: string, l: string) => void shown.push(`${l}:${m}`),
    setStatus: (k: string, t?: string) => void shown.push(`status ${k}=${t}`),
    confirm: async () => true,
  };
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

  it("shows control characters of every text as escapes: notify (UI and stderr), status, confirm", async () => {
    const osc = "\u001b]52;c;aGVsbG8=\u0007";
    const { ctx, shown } = recordingCtx(true);
    const asked: string[] = [];
    (ctx as { ui: { confirm: unknown } }).ui.confirm = async (t: string, m: string) => (asked.push(t, m), true);
    const bridge = uiBridgeFrom(ctx);
    bridge.notify(`server ${osc}x said:\nline two`, "warning");
    bridge.setStatus("k", `a${osc}\nb`);
    await bridge.confirm(`t${osc}`, `m${osc}\nm2`);
    expect(shown).toEqual(["warning:server \\u001b]52;c;aGVsbG8=\\u0007x said:\nline two", "status k=a\\u001b]52;c;aGVsbG8=\\u0007\\nb"]);
    expect(asked).toEqual(["t\\u001b]52;c;aGVsbG8=\\u0007", "m\\u001b]52;c;aGVsbG8=\\u0007\nm2"]);
    const print = recordingCtx(false);
    const lines: string[] = [];
    uiBridgeFrom(print.ctx, (t) => void lines.push(t)).notify(`bad ${osc}${Math.random()}`, "error");
    expect(lines[0]).toMatch(/^pi-governor error: bad \\u001b\]52;c;aGVsbG8=\\u0007/);
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
