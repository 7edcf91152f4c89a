/**
 * Finds out before spawning whether KotaDB's runtime can start at all, so a missing Bun becomes one
 * clear message with the fix instead of a connect timeout. Looks the command up on PATH the way
 * execvp does; does not run anything.
 */
import { accessSync, constants } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { IgnoredTrustedKey } from "../../core/index.ts";
import { absolutePathEntries } from "../../lib/search-path/index.ts";
import { ALLOW_PROJECT_LINE, CONFIG_FILE } from "../../lib/config/index.ts";
import { redactedCommandLine, type Redactor } from "../../lib/redact/index.ts";

/** The kota keys that decide what program starts KotaDB and how. */
const LAUNCH_KEYS = new Set(["command", "args", "env", "cwd"]);

/** The fix shown when Bun is missing. */
export const BUN_INSTALL_HINT = "Bun (npm i -g bun, or see https://bun.sh)";

/**
 * Whether `command` resolves to an executable on `pathVar`'s absolute entries, as the spawn looks it up
 * (absolute and relative paths are checked directly).
 */
export function commandExists(command: string, pathVar: string | undefined, cwd: string): boolean {
  const can = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(command)) return can(command);
  if (command.includes("/")) return can(join(cwd, command));
  const exts = process.platform === "win32" ? ["", ".exe", ".cmd"] : [""];
  return absolutePathEntries(pathVar).some((dir) => exts.some((e) => can(join(dir, command + e))));
}

/** The user's global config file, where KotaDB's launch keys and the preset are chosen. */
export function globalConfigFile(agentDir: string): string {
  return join(agentDir, CONFIG_FILE);
}

/**
 * The user- and model-facing text for a missing command. `configFile` is the user's global config
 * file (under PI_CODING_AGENT_DIR when set). A missing Bun names the no-Bun choice too: the lean preset.
 */
export function missingCommandText(command: string, configFile: string): string {
  if (command === "bun") {
    return `KotaDB needs Bun, and \`bun\` is not on PATH. Install Bun (\`npm i -g bun\`, or see https://bun.sh), then run /kota restart. Without Bun: set "preset": "lean" in ${configFile} (blobs and pruning, no KotaDB tools), then /reload. Until then the kota_* tools are unavailable; everything else (pruning, blobs) keeps working.`;
  }
  return `KotaDB's command \`${command}\` was not found. Install it or set "kota.command" in ${configFile}, then run /kota restart. Until then the kota_* tools are unavailable; everything else keeps working.`;
}

/** What a KotaDB start that failed looked like, for {@link kotaStartHint}. */
export interface KotaStartFailure {
  /** The last lines KotaDB wrote to stderr. */
  stderrTail?: string;
  /** True when KotaDB did not answer in time (it may still be downloading); false when it exited. */
  timedOut?: boolean;
}

/** The cause a KotaDB start's stderr points to, with its fix. Checked in order; the first match wins. */
const STDERR_CAUSES: ReadonlyArray<{ test: RegExp; fix: (args: string, configFile: string) => string }> = [
  {
    test: /\b404\b|E404|not found|no matching version|could not resolve|no such package/i,
    fix: (args, configFile) =>
      `The npm registry has no such package or version (${args}): check the package name and version in "kota.args" in ${configFile} (the default is kotadb@next), or install KotaDB (\`bun add -g kotadb@next\`) and set "kota.command"/"kota.args"; then run /kota restart.`,
  },
  {
    test: /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|network|proxy|certificate|TLS/i,
    fix: (_args, configFile) =>
      `The npm registry could not be reached: check network access (proxy, certificates), or install KotaDB (\`bun add -g kotadb@next\`) and set "kota.command"/"kota.args" in ${configFile}; then run /kota restart.`,
  },
  {
    test: /EACCES|EPERM|permission denied/i,
    fix: (_args, configFile) =>
      `KotaDB was refused a file it needs (permissions): check that Bun's cache (~/.bun) and the pi agent folder are yours and writable, or set "kota.command"/"kota.args" in ${configFile}; then run /kota restart.`,
  },
];

/**
 * What to add when KotaDB's command exists but KotaDB does not start: the fix its stderr points to
 * (a 404: no such package or version; a network error; permissions), else where to look.
 */
export function kotaStartHint(
  command: string,
  args: readonly string[],
  configFile: string,
  failure: KotaStartFailure = {},
  redactor?: Pick<Redactor, "redact">,
): string {
  // The line reaches the model: a token in kota.args (`--token X`, a known shape) is hidden.
  const line = redactor ? redactedCommandLine(command, args, redactor) : [command, ...args].join(" ");
  const cause = failure.stderrTail ? STDERR_CAUSES.find((c) => c.test.test(failure.stderrTail!)) : undefined;
  if (cause) return `KotaDB did not start (\`${line}\`). ${cause.fix(args.join(" "), configFile)}`;
  if (command === "bun" && args.some((a) => a.startsWith("kotadb"))) {
    if (failure.timedOut === false)
      return `KotaDB exited during start (\`${line}\`): its stderr says why. Check "kota.command"/"kota.args" in ${configFile}, then run /kota restart.`;
    return `KotaDB did not start (\`${line}\`). bun x downloads KotaDB from the npm registry on first use: check network access to it, or install KotaDB (\`bun add -g kotadb@next\`) and set "kota.command"/"kota.args" in ${configFile}; then run /kota restart.`;
  }
  return `KotaDB did not start (\`${line}\`). Check "kota.command" and "kota.args" in ${configFile}, then run /kota restart.`;
}

/**
 * Why the project's KotaDB launch settings are not in force, with the line that allows them; "" when
 * no project file set any. Added to the not-found and did-not-start messages and to /kota status, so
 * "`bun` is not on PATH" does not leave the user wondering why the project's command was not used.
 */
export function ignoredProjectLaunchNote(ignored: readonly IgnoredTrustedKey[] | undefined, agentDir: string): string {
  const launch = (ignored ?? []).filter((k) => k.section === "kota" && LAUNCH_KEYS.has(k.key));
  if (launch.length === 0) return "";
  const keys = launch.map((k) => `kota.${k.key}`).join(", ");
  const files = [...new Set(launch.map((k) => k.source))].join(", ");
  return `The project's ${keys} (set in ${files}) ${launch.length > 1 ? "were" : "was"} ignored: a project config may not choose what program runs. If you trust this repository, add ${ALLOW_PROJECT_LINE} to ${join(agentDir, CONFIG_FILE)}, then run /kota restart.`;
}
