/**
 * Finds which pi is installed, under either npm scope it has been published in: `@mariozechner`
 * (up to 0.73) and `@earendil-works` (0.74 onwards). Reads package.json files only; never imports pi.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, parse } from "node:path";
import { absolutePathEntries } from "../../core/sdk.ts";

/** npm scopes pi has been published under, newest first. */
export const PI_SCOPES = ["@earendil-works", "@mariozechner"] as const;
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

function readManifest(dir: string): PiInstall | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
    const scope = PI_SCOPES.find((s) => pkg.name === `${s}/pi-coding-agent`);
    return scope && typeof pkg.version === "string" ? { scope, version: pkg.version, dir } : undefined;
  } catch {
    return undefined;
  }
}

/** The pi package a file belongs to (walking up from it), e.g. the running `pi` CLI's dist/cli.js. */
function packageOf(file: string): PiInstall | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(file));
  } catch {
    return undefined;
  }
  const root = parse(dir).root;
  for (; dir !== root; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) {
      const found = readManifest(dir);
      if (found) return found;
    }
  }
  return undefined;
}

/** pi in `<ancestor>/node_modules/<scope>/pi-coding-agent` of `start`, newest scope first. */
function installedAbove(start: string): PiInstall | undefined {
  const root = parse(start).root;
  for (let dir = start; ; dir = dirname(dir)) {
    for (const scope of PI_SCOPES) {
      const found = readManifest(join(dir, "node_modules", scope, "pi-coding-agent"));
      if (found) return found;
    }
    if (dir === root) return undefined;
  }
}

/**
 * pi installed with the package at `packageDir`: in its own node_modules (a clone's dev dependency)
 * or beside it in the node_modules that holds it (a global install, a tools folder). Never in an
 * ancestor's node_modules: a package installed inside a repository (`pi install -l` puts it under
 * `<repo>/.pi/git/`) would otherwise reach the repository's own node_modules.
 */
function installedBeside(packageDir: string): PiInstall | undefined {
  const parent = dirname(packageDir);
  const folders = [join(packageDir, "node_modules"), ...(basename(parent) === "node_modules" ? [parent] : [])];
  for (const folder of folders) {
    for (const scope of PI_SCOPES) {
      const found = readManifest(join(folder, scope, "pi-coding-agent"));
      if (found) return found;
    }
  }
  return undefined;
}

/** Where to look for pi; every field optional. */
export interface PiSearch {
  /** The running program's script (`process.argv[1]`): inside pi, that is pi's own CLI. */
  script?: string;
  /**
   * Folders whose node_modules (or an ancestor's) may hold pi: this package, and (only where what
   * is found is read, never loaded) the cwd.
   */
  from?: readonly string[];
  /**
   * Instead of `from`: only pi installed with this package folder (its node_modules, or beside it in
   * the node_modules holding it), for code that loads what it finds.
   */
  besidePackage?: string;
  /** PATH, to find a globally installed `pi` command; its relative entries are skipped. */
  pathVar?: string;
  /**
   * Look on PATH before the `from` folders: in a shell, the `pi` a user would run is the one on PATH,
   * not a pi installed beside pi-governor (its own dev dependency, in a clone). Default false.
   */
  pathFirst?: boolean;
}

/**
 * The `pi` command on `pathVar`, when it belongs to a pi package. Relative entries (`.`,
 * `node_modules/.bin`, an empty entry) name folders of the current directory, which a repository
 * controls: they are skipped.
 */
function onPath(pathVar: string | undefined): PiInstall | undefined {
  for (const dir of absolutePathEntries(pathVar)) {
    const bin = join(dir, process.platform === "win32" ? "pi.cmd" : "pi");
    if (existsSync(bin)) {
      const found = packageOf(bin);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The pi that runs (or would run) pi-governor: the package of the running script when it is pi,
 * else one installed beside this package or the cwd, else the `pi` command on PATH (with
 * `pathFirst`, PATH before the folders). Undefined when none is found. `source` says which.
 */
export function findPi(search: PiSearch): PiInstall | undefined {
  if (search.script) {
    const running = packageOf(search.script);
    if (running) return { ...running, source: "running" };
  }
  const path = () => {
    const found = onPath(search.pathVar);
    return found && { ...found, source: "path" as const };
  };
  const beside = () => {
    if (search.besidePackage !== undefined) {
      const found = installedBeside(search.besidePackage);
      return found && { ...found, source: "beside" as const };
    }
    for (const dir of search.from ?? []) {
      const found = installedAbove(dir);
      if (found) return { ...found, source: "beside" as const };
    }
    return undefined;
  };
  return search.pathFirst ? (path() ?? beside()) : (beside() ?? path());
}
export { MAX_PI_FULL_OUTPUT_BYTES, piFullOutputPath, readPiFullOutput, type PiFullOutputOptions } from "./full-output.ts";
