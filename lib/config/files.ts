/**
 * What plugins and the config loader both say about config files: their name, where pi's agent
 * directory is, and the line that lets a project file set trusted keys.
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** Config file name in pi's agent dir and in a project's `.pi/` folder. */
export const CONFIG_FILE = "pi-governor.json";

/** pi's agent directory: `PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function agentDirFrom(env: Readonly<Record<string, string | undefined>>): string {
  return env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
}

/** The line that lets project files set trusted keys, for messages. */
export const ALLOW_PROJECT_LINE = '"allowProjectSpawnConfig": true';
