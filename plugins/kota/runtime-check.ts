/**
 * Finds out before spawning whether KotaDB's runtime can start at all, so a missing Bun becomes one
 * clear message with the fix instead of a connect timeout. Looks the command up on PATH the way
 * execvp does; does not run anything.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** The fix shown when Bun is missing. */
export const BUN_INSTALL_HINT = "Bun (npm i -g bun, or see https://bun.sh)";

/** Whether `command` resolves to an executable on `pathVar` (absolute and relative paths are checked directly). */
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
  return (pathVar ?? "").split(delimiter).some((dir) => dir && exts.some((e) => can(join(dir, command + e))));
}

/** The user- and model-facing text for a missing command. */
export function missingCommandText(command: string): string {
  if (command === "bun") {
    return "KotaDB needs Bun, and `bun` is not on PATH. Install Bun (`npm i -g bun`, or see https://bun.sh), then run /kota restart. Until then the kota_* tools are unavailable; everything else (pruning, blobs) keeps working.";
  }
  return `KotaDB's command \`${command}\` was not found. Install it or set "kota.command" in ~/.pi/agent/pi-governor.json, then run /kota restart. Until then the kota_* tools are unavailable; everything else keeps working.`;
}

/**
 * What to add when KotaDB's command exists but KotaDB does not start (e.g. `bun x kotadb@next` cannot
 * download KotaDB): where to look and how to fix it.
 */
export function kotaStartHint(command: string, args: readonly string[]): string {
  const line = [command, ...args].join(" ");
  if (command === "bun" && args.some((a) => a.startsWith("kotadb"))) {
    return `KotaDB did not start (\`${line}\`). bun x downloads KotaDB from the npm registry on first use: check network access to it, or install KotaDB (\`bun add -g kotadb@next\`) and set "kota.command"/"kota.args" in ~/.pi/agent/pi-governor.json; then run /kota restart.`;
  }
  return `KotaDB did not start (\`${line}\`). Check "kota.command" and "kota.args" in ~/.pi/agent/pi-governor.json, then run /kota restart.`;
}
