/**
 * A stand-in for pi's ExtensionAPI for unit tests of the pi adapter's event bindings: it records the
 * handlers `bindGovernor` registers, by event name, and accepts every registration. The adapter as a
 * whole is proven in real pi sessions (test/e2e).
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

/** A handler pi would call: the event and the extension context in, the handler's answer out. */
export type FakePiHandler = (event: unknown, ctx: unknown) => Promise<unknown>;

/** The API and the handlers registered on it. */
export function fakePi(): { pi: ExtensionAPI; handlers: Map<string, FakePiHandler[]> } {
  const handlers = new Map<string, FakePiHandler[]>();
  const pi = {
    on: (name: string, h: FakePiHandler) => void (handlers.get(name) ?? handlers.set(name, []).get(name)!).push(h),
    registerTool: () => {},
    registerCommand: () => {},
    appendEntry: () => {},
    getActiveTools: () => [],
    setActiveTools: () => {},
    getAllTools: () => [],
  } as unknown as ExtensionAPI;
  return { pi, handlers };
}
