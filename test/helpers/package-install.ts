/**
 * Installs of the package the way its users make them, for tests: a copy of what a clone holds with
 * `npm ci --omit=dev`, or the `npm pack` tarball in a team's empty project. npm reads the real npm
 * cache (the hermetic test HOME has none), so packages come from it first and from the registry
 * only when missing.
 */
import { spawn } from "node:child_process";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./pi-host.ts";

export { repoRoot };

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` in `cwd` with `env` added; kills it (SIGKILL) after `timeoutMs` (default 120000). */
export function run(command: string, args: readonly string[], cwd: string, env: Record<string, string | undefined> = {}, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** npm quietly, cache first: `npm <args>` in `cwd`; rejects with npm's output when it fails. */
export async function npm(args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<Run> {
  const quiet = {
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_prefer_offline: "true",
    npm_config_loglevel: "error",
  };
  const result = await run("npm", args, cwd, quiet, timeoutMs);
  if (result.code !== 0) throw new Error(`npm ${args.join(" ")} in ${cwd} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** What a clone of the repository holds that the package runs from: package.json, the lockfile and `files` (dist/ is built, not committed). */
export function copyClone(to: string): void {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { files: string[] };
  for (const entry of ["package.json", "package-lock.json", ...pkg.files.filter((f) => !f.startsWith("dist"))]) {
    cpSync(join(repoRoot, entry), join(to, entry), { recursive: true });
  }
}
