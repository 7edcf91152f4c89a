/**
 * pi-governor's full public API (the package's "." export): the plugin SDK (`core/sdk.ts`,
 * `pi-governor/sdk`) and the host entry (`host/index.ts`, `pi-governor/host`) together, plus the
 * few names earlier versions exported here that neither entry needs (the constants behind the tag
 * and pi MCP helpers, the status view of a tap). Code in this repository imports the narrower
 * entry it needs; this one keeps every name `pi-governor` exported before, so external plugins and
 * hosts keep compiling.
 */
export * from "../host/index.ts";
export * from "./sdk.ts";
export type { TapRecord } from "./hooks.ts";
