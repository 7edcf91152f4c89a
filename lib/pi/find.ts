/**
 * Finds which pi is installed: the one running this process, one in a node_modules above a folder,
 * or the one the `pi` command on PATH starts. Reads files only; never imports or runs pi.
 */
import { basename, dirname, join, parse } from "node:path";
import { readPiCommand } from "./command.ts";
import { type PiInstall, PI_SCOPES, piPackageOf, readPiManifest } from "./package.ts";

/** pi in `<ancestor>/node_modules/<scope>/pi-coding-agent` of `start`, newest scope first. */
function installedAbove(start: string): PiInstall | undefined {
  const root = parse(start).root;
  for (let dir = start; ; dir = dirname(dir)) {
    for (const scope of PI_SCOPES) {
      const found = readPiManifest(join(dir, "node_modules", scope, "pi-coding-agent"));
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
      const found = readPiManifest(join(folder, scope, "pi-coding-agent"));
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
  /** Folders the current project controls, never looked in for the `pi` command (see untrustedRoots in command.ts). */
  untrusted?: readonly string[];
}

/** The pi package the `pi` command on `pathVar` starts (pi's own cli.js, or one a wrapper script names). */
function onPath(pathVar: string | undefined, untrusted: readonly string[]): PiInstall | undefined {
  return readPiCommand(pathVar, untrusted)?.pi;
}

/**
 * The pi that runs (or would run) pi-governor: the package of the running script when it is pi,
 * else one installed beside this package or the cwd, else the `pi` command on PATH (with
 * `pathFirst`, PATH before the folders). Undefined when none is found. `source` says which.
 */
export function findPi(search: PiSearch): PiInstall | undefined {
  if (search.script) {
    const running = piPackageOf(search.script);
    if (running) return { ...running, source: "running" };
  }
  const path = () => {
    const found = onPath(search.pathVar, search.untrusted ?? []);
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
