/**
 * The testing kit for plugin authors (`pi-governor/testing`): a fake pi host that drives plugins
 * through pi's events (`fakePiHost`, docs/plugins.md "Testing a plugin"), a clock that moves only
 * when told, tool-only plugins, and the bare stand-in for pi's extension API.
 */
export * from "./fake-pi.ts";
export * from "./manual-clock.ts";
export * from "./tool-plugin.ts";
export * from "./pi-host.ts";
