/**
 * The `pi` command on PATH, read without running it: which pi package it starts and with which Node
 * program. pi is installed as a link to its `dist/cli.js` (`#!/usr/bin/env node`: the first `node`
 * on PATH, or an absolute Node in the `#!` line), or behind a wrapper script that names its Node and
 * pi (`exec /opt/node-24/bin/node /opt/pi/node_modules/@earendil-works/pi-coding-agent/dist/cli.js "$@"`).
 *
 * The shell CLI re-runs itself on that Node when its own has no SQLite driver, and the doctor
 * reports it; both would run what this finds. So nothing is taken from a place the current project
 * controls (see {@link untrustedRoots}): no relative PATH entry, no PATH entry, `pi`, wrapper or Node
 * inside the project, and no Node program that anyone but its owner may write.
 */
import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join, parse, relative, resolve } from "node:path";
import { type PiInstall, piPackageOf } from "./package.ts";

/** What the `pi` command on PATH is. */
export interface PiCommand {
  /** The `pi` file on PATH (as found, before links are followed). */
  file: string;
  /** The pi package it starts, when that could be read. */
  pi?: PiInstall;
  /** The Node program it runs with (absolute, links followed), when found and trusted. */
  node?: string;
  /** How: `link` (pi's own cli.js, on PATH's `node` or its `#!` one) or `wrapper` (a script that names them). */
  kind: "link" | "wrapper";
}

/** Bytes of a `pi` file read to find what it runs (a wrapper is a few lines; pi's cli.js starts with its `#!` line). */
const HEAD_BYTES = 64 * 1024;

/**
 * Folders whose files the current project controls: the git repository holding `cwd` (found by its
 * `.git` entry, without running git), else `cwd` itself, unless `cwd` is the home folder or above it
 * (a shell started there is in no project).
 */
export function untrustedRoots(cwd: string, home = homedir()): string[] {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return [dir];
    if (dir === parse(dir).root) break;
  }
  const rel = relative(start, resolve(home));
  const aboveHome = rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  return aboveHome ? [] : [start];
}

function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  });
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * `path` with links followed, when it is a regular executable file outside `roots` that only its
 * owner may write; else undefined.
 */
export function trustedProgram(path: string, roots: readonly string[]): string | undefined {
  const real = realpath(path);
  if (!real || inside(real, roots)) return undefined;
  try {
    const st = statSync(real);
    if (!st.isFile() || (st.mode & 0o111) === 0 || (st.mode & 0o022) !== 0) return undefined;
  } catch {
    return undefined;
  }
  return real;
}

/** Absolute PATH entries outside `roots`, in order. */
function pathDirs(pathVar: string | undefined, roots: readonly string[]): string[] {
  return (pathVar ?? "").split(delimiter).filter((dir) => dir && isAbsolute(dir) && !inside(resolve(dir), roots) && !inside(realpath(dir) ?? dir, roots));
}

/** The first trusted `name` program on PATH. */
export function whichTrusted(name: string, pathVar: string | undefined, roots: readonly string[]): string | undefined {
  for (const dir of pathDirs(pathVar, roots)) {
    const candidate = join(dir, name);
    if (!existsSync(candidate)) continue;
    const found = trustedProgram(candidate, roots);
    if (found) return found;
  }
  return undefined;
}

function head(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, HEAD_BYTES, 0)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** A Node program's name: `node`, `nodejs`, `node24`, `node-24`. */
const NODE_NAME = /^node(js)?[-\d.]*$/;

/** The interpreter of a `#!` line: `/usr/bin/env node` -> "node", `/opt/node/bin/node --flag` -> "/opt/node/bin/node". */
function interpreter(firstLine: string): string | undefined {
  const words = firstLine
    .replace(/^#!\s*/, "")
    .trim()
    .split(/\s+/);
  if (basename(words[0] ?? "") !== "env") return words[0];
  return words.slice(1).find((w) => !w.startsWith("-"));
}

/** Absolute paths written in a script, in order (quoted or not). */
function absolutePaths(text: string): string[] {
  return [...text.matchAll(/(?:^|[\s"'=:])(\/[^\s"'`;|&<>()$]+)/g)].map((m) => m[1]!);
}

/**
 * The `pi` command on `pathVar` (the first `pi` file outside the project), read without running
 * anything, with the Node it runs on; undefined when there is none.
 */
export function readPiCommand(pathVar: string | undefined, roots: readonly string[]): PiCommand | undefined {
  for (const dir of pathDirs(pathVar, roots)) {
    const file = join(dir, process.platform === "win32" ? "pi.cmd" : "pi");
    if (!existsSync(file)) continue;
    const real = realpath(file);
    if (!real || inside(real, roots)) continue;
    let text: string;
    try {
      text = head(real);
    } catch {
      continue;
    }
    const program = text.startsWith("#!") ? interpreter(text.split("\n", 1)[0]!) : undefined;
    if (program && NODE_NAME.test(basename(program))) {
      // pi's own cli.js (npm links it): its package is the one above it.
      const node = isAbsolute(program) ? trustedProgram(program, roots) : whichTrusted(program, pathVar, roots);
      return { file, kind: "link", ...(piPackageOf(real) ? { pi: piPackageOf(real) } : {}), ...(node ? { node } : {}) };
    }
    // A wrapper: the pi package and the Node program it names, else `node` from PATH.
    const paths = absolutePaths(text).filter((p) => !inside(p, roots));
    const pi = paths.map((p) => (existsSync(p) ? piPackageOf(p) : undefined)).find(Boolean);
    const named = paths.filter((p) => NODE_NAME.test(basename(p))).map((p) => trustedProgram(p, roots));
    const node = named.find(Boolean) ?? (/(^|[\s;&|])node(\s|$)/m.test(text) ? whichTrusted("node", pathVar, roots) : undefined);
    return { file, kind: "wrapper", ...(pi ? { pi } : {}), ...(node ? { node } : {}) };
  }
  return undefined;
}
