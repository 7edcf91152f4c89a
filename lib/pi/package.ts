/**
 * A pi package read from its package.json (never imported), under either npm scope it has been
 * published in: `@mariozechner` (up to 0.73) and `@earendil-works` (0.74 onwards).
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, parse } from "node:path";

/** npm scopes pi has been published under, newest first. */
export const PI_SCOPES = ["@earendil-works", "@mariozechner"] as const;
/** One of {@link PI_SCOPES}. */
export type PiScope = (typeof PI_SCOPES)[number];

/**
 * Where a pi was found: `running` (the pi whose CLI runs this process), `path` (the `pi` command on
 * PATH), `beside` (installed in a node_modules above pi-governor's folder or the cwd).
 */
export type PiSource = "running" | "path" | "beside";

/** One installed pi-coding-agent. */
export interface PiInstall {
  scope: PiScope;
  /** e.g. "0.87.1". */
  version: string;
  /** The package folder (holds package.json and dist/). */
  dir: string;
  /** Where it was found (set by {@link findPi}). */
  source?: PiSource;
}

/** The pi package in `dir` (its package.json read), or undefined when `dir` holds none. */
export function readPiManifest(dir: string): PiInstall | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
    const scope = PI_SCOPES.find((s) => pkg.name === `${s}/pi-coding-agent`);
    return scope && typeof pkg.version === "string" ? { scope, version: pkg.version, dir } : undefined;
  } catch {
    return undefined;
  }
}

/** The pi package a file belongs to (walking up from it), e.g. the running `pi` CLI's dist/cli.js. */
export function piPackageOf(file: string): PiInstall | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(file));
  } catch {
    return undefined;
  }
  const root = parse(dir).root;
  for (; dir !== root; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) {
      const found = readPiManifest(dir);
      if (found) return found;
    }
  }
  return undefined;
}
