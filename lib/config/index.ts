/**
 * What plugins and the config loader both know about config: the bounds every plugin schema uses
 * (bounds.ts) and the config files' name and places (files.ts).
 */
export * from "./bounds.ts";
export * from "./files.ts";
