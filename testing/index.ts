/**
 * The testing kit for plugin authors (`pi-governor/testing`): a clock that moves only when told,
 * tool-only plugins, and a stand-in for pi's extension API.
 */
export * from "./fake-pi.ts";
export * from "./manual-clock.ts";
export * from "./tool-plugin.ts";
