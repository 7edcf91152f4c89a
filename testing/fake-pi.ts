/**
 * A stand-in for pi's ExtensionAPI that records the handlers an extension registers, for unit tests
 * of the pi adapter's bindings (what pi itself does with them is proven in test/e2e).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** An event handler as the adapter registers it. */
export type FakePiHandler = (event: unknown, ctx: unknown) => Promise<unknown> | unknown;

/** The fake ExtensionAPI and the handlers registered on it, by event name, in order. */
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
