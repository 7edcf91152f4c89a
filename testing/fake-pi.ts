/**
 * A stand-in for pi's ExtensionAPI that records the handlers an extension registers, for unit tests
 * of the pi adapter's bindings (what pi itself does with them is proven in test/e2e). `fakePiHost`
 * (pi-host.ts) drives those handlers as pi would.
 */
// The structural slice of pi's ExtensionAPI (host/pi/extension-api.ts), so that the kit's declarations name no pi.
import type { PiExtensionApi } from "../host/index.ts";

/** An event handler as the adapter registers it. */
export type FakePiHandler = (event: unknown, ctx: unknown) => Promise<unknown> | unknown;

/** The fake ExtensionAPI and the handlers registered on it, by event name, in order. */
export function fakePi(): { pi: PiExtensionApi; handlers: Map<string, FakePiHandler[]> } {
  const handlers = new Map<string, FakePiHandler[]>();
  const pi = {
    on: (name: string, h: FakePiHandler) => void (handlers.get(name) ?? handlers.set(name, []).get(name)!).push(h),
    registerTool: () => {},
    registerCommand: () => {},
    appendEntry: () => {},
    getActiveTools: () => [],
    setActiveTools: () => {},
    getAllTools: () => [],
  } as PiExtensionApi;
  return { pi, handlers };
}
