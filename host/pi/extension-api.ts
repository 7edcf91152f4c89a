/**
 * pi's extension API as pi-governor's published declarations name it. pi ships under two npm scopes
 * (`@mariozechner` up to 0.73, `@earendil-works` since) and a team has one of them installed: a
 * declaration that imports either scope's types breaks the other's type check (TS2307 with
 * skipLibCheck off). So the public signatures take this structural slice, which `ExtensionAPI` of
 * every pi line satisfies, and the adapter reads it as the current pi's own `ExtensionAPI` inside.
 * This file imports nothing, so its declaration names no pi.
 */
/** What pi hands an extension factory (`ExtensionAPI` of any pi line fits). */
export interface PiExtensionApi {
  readonly on: (...args: any[]) => unknown;
  readonly registerTool: (...args: any[]) => unknown;
  readonly registerCommand: (...args: any[]) => unknown;
  readonly appendEntry: (...args: any[]) => unknown;
  readonly getActiveTools: (...args: any[]) => unknown;
  readonly setActiveTools: (...args: any[]) => unknown;
}
