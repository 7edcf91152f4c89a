/**
 * The servers pi runs from its own MCP config (pi 1.x): `<agentDir>/mcp.json` and the project's
 * `.pi/mcp.json` (`mcpServers`; a project entry overrides the user's entry of the same name, an
 * entry with `"enabled": false` is not run). The policies plugin reads only their names and whether
 * pi runs them: a resource listing without a server reaches each of them, and a rule naming one of
 * them names a server whose tools pi lists only once it connects. A file that cannot be read safely
 * names no server (the servers pi reports at call time still count).
 */
import { join } from "node:path";
import { readBoundedFileSync } from "../../lib/safe-file/index.ts";

/** Largest mcp.json read, in bytes. */
const MAX_MCP_JSON_BYTES = 1_048_576;
/**
 * Most servers taken from the files together, and judged one by one for a listing of every server
 * (each is matched against every glob: 256 servers x 100 crafted deny globs is about 0.2 s).
 */
export const MAX_PI_SERVERS = 256;

/**
 * pi's servers by name: whether pi runs each (`enabled` not false), after the project's overrides;
 * `truncated` when the files name more than {@link MAX_PI_SERVERS} (the rest are not read).
 */
export function piMcpServers(agentDir: string, cwd: string): { servers: Map<string, boolean>; truncated: boolean } {
  const servers = new Map<string, boolean>();
  let truncated = false;
  for (const file of [join(agentDir, "mcp.json"), join(cwd, ".pi", "mcp.json")]) {
    for (const [name, entry] of entriesOf(file)) {
      if (servers.size >= MAX_PI_SERVERS && !servers.has(name)) {
        truncated = true;
        break;
      }
      // An entry without command, url or type only overrides `enabled` of the user's entry of that name.
      const override = isRecord(entry) && entry.command === undefined && entry.url === undefined && entry.type === undefined;
      const said = isRecord(entry) && typeof entry.enabled === "boolean" ? entry.enabled : undefined;
      const enabled = said ?? (override ? (servers.get(name) ?? true) : true);
      servers.set(name, enabled);
    }
  }
  return { servers, truncated };
}

function entriesOf(path: string): Array<[string, unknown]> {
  try {
    const bytes = readBoundedFileSync(path, { maxBytes: MAX_MCP_JSON_BYTES });
    if (!bytes) return [];
    const data = JSON.parse(bytes.toString("utf8")) as { mcpServers?: unknown };
    return isRecord(data?.mcpServers) ? Object.entries(data.mcpServers).filter(([name]) => /^[A-Za-z0-9_-]{1,64}$/.test(name)) : [];
  } catch {
    return [];
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The names of the servers pi runs (not disabled) of {@link piMcpServers}'s answer. */
export function runningServers(config: { servers: Map<string, boolean> }): string[] {
  return [...config.servers].filter(([, on]) => on).map(([name]) => name);
}
