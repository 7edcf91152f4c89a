/**
 * Servers handed over from pi's own MCP configuration (pi 0.99+): `mcp.fromPi` names entries of the
 * user-level `<agentDir>/mcp.json` (`mcpServers`), and pi-governor runs them with the same command,
 * arguments, environment and working directory, so a server is configured in one place. Only the
 * user's file is read (a project's `.pi/mcp.json` is the repository's), only stdio servers can be
 * managed, and `${VAR}` in `env` is expanded from pi's environment as pi does; `!command` values are
 * refused (pi-governor runs no shell for a config value).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { FromPiEntry, McpServerOptions } from "./config.ts";

/** Largest mcp.json read, in bytes. */
export const MAX_PI_MCP_JSON_BYTES = 1_048_576;

/** One handed-over server: its options, or why it cannot be managed; and whether pi still runs it. */
export type HandedOver = { name: string; enabledInPi: boolean } & ({ options: McpServerOptions } | { problem: string });

/** The path of pi's user-level MCP config for an agent dir. */
export function piMcpJsonPath(agentDir: string): string {
  return join(agentDir, "mcp.json");
}

/** pi's mcp.json as read: its servers by name, or why it could not be read (undefined: no file). */
export type PiMcpJson = { path: string; servers: Record<string, unknown> } | { path: string; error: string } | undefined;

/**
 * Reads pi's user-level mcp.json. No file: undefined. A file that is not a regular file (a link, a
 * FIFO, a device), one over {@link MAX_PI_MCP_JSON_BYTES} or one that is not JSON: the reason.
 */
export function readPiMcpJson(agentDir: string): PiMcpJson {
  const path = piMcpJsonPath(agentDir);
  try {
    const data = JSON.parse(readBounded(path)) as { mcpServers?: unknown };
    return { path, servers: isRecord(data?.mcpServers) ? data.mcpServers : {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { path, error: (error as NodeJS.ErrnoException).code === "ELOOP" ? "it is a symbolic link" : (error as Error).message };
  }
}

/** pi's servers and whether pi runs each (`enabled` not false), for status lines. */
export function piServerStates(file: PiMcpJson): Array<{ name: string; enabled: boolean }> {
  if (!file || "error" in file) return [];
  return Object.entries(file.servers).map(([name, entry]) => ({ name, enabled: !isRecord(entry) || entry.enabled !== false }));
}

/** The named servers of pi's mcp.json as pi-governor options, or why each cannot be managed. */
export function readHandedOver(file: PiMcpJson, entries: readonly FromPiEntry[], env: Readonly<Record<string, string | undefined>>): HandedOver[] {
  if (!entries.length) return [];
  const tuning = new Map(entries.map((e) => (typeof e === "string" ? [e, {}] : [e.name, (({ name: _n, ...rest }) => rest)(e)])));
  const names = [...tuning.keys()];
  if (!file || "error" in file) {
    const why = file ? `cannot read ${file.path}: ${file.error}` : "pi's mcp.json does not exist";
    return names.map((name) => ({ name, enabledInPi: false, problem: why }));
  }
  const { path, servers } = file;
  return names.map((name) => {
    const entry = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!isRecord(entry)) return { name, enabledInPi: false, problem: `${path} has no server "${name}" under mcpServers` };
    const enabledInPi = entry.enabled !== false;
    if (typeof entry.command !== "string" || !entry.command) {
      return {
        name,
        enabledInPi,
        problem: `"${name}" in ${path} is not a stdio server (no command): pi-governor manages stdio servers; leave HTTP servers to pi`,
      };
    }
    // pi reads a leading ~/ in command, args and cwd as the home directory.
    const home = env.HOME ?? "";
    const tilde = (v: string) => (v.startsWith("~/") && home ? join(home, v.slice(2)) : v);
    const args = Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string") ? (entry.args as string[]).map(tilde) : [];
    const expanded = expandEnv(isRecord(entry.env) ? entry.env : {}, env);
    if ("problem" in expanded) return { name, enabledInPi, problem: `"${name}" in ${path}: ${expanded.problem}` };
    const options: McpServerOptions = {
      ...tuning.get(name),
      command: tilde(entry.command),
      args,
      env: expanded.env,
      ...(typeof entry.cwd === "string" ? { cwd: tilde(entry.cwd) } : {}),
    };
    return { name, enabledInPi, options };
  });
}

/** `${NAME}` replaced from `env` (unset: empty, as pi does); a `!command` value is refused. */
function expandEnv(raw: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): { env: Record<string, string> } | { problem: string } {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== "string") return { problem: `env.${key} is not a string` };
    if (value.startsWith("!"))
      return { problem: `env.${key} runs a command ("!..."), which pi-governor does not do; set the value in the environment and write \${NAME}` };
    out[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]{0,127})\}/g, (_m, name: string) => env[name] ?? "");
  }
  return { env: out };
}

/** The file's text: opened without following a link or blocking on a FIFO, a regular file, bounded. */
function readBounded(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    if (stat.size > MAX_PI_MCP_JSON_BYTES) throw new Error(`larger than ${MAX_PI_MCP_JSON_BYTES} bytes`);
    const buf = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
