/**
 * Which operating-system process serves a governed tool, per pipeline. The plugins that own managed
 * servers (mcp-servers, kota) announce each server under the tool tag its tools carry (`mcp:<name>`,
 * `server:kota`); the chaos plugin looks the process up at call time to stop or kill it mid-call.
 * The pid is read live: a restarted server has a new one, a stopped (lazy) server has none.
 */

/** A server process as seen from the pipeline that owns it. */
export interface ServerProcess {
  /** The server's name (`everything`, `kota`). */
  readonly server: string;
  /** The pid of the running child, or undefined while none runs. */
  pid(): number | undefined;
}

const byScope = new WeakMap<object, Map<string, ServerProcess>>();

/**
 * Records that tools tagged `tag` in `scope` (the pipeline) are served by `process`. A second
 * announcement for the same tag replaces the first.
 */
export function announceServerProcess(scope: object, tag: string, process: ServerProcess): void {
  const map = byScope.get(scope) ?? new Map<string, ServerProcess>();
  byScope.set(scope, map);
  map.set(tag, process);
}

/** The process serving a tool with these tags in `scope`, or undefined (not an MCP-backed tool). */
export function serverProcessFor(scope: object, tags: readonly string[]): ServerProcess | undefined {
  const map = byScope.get(scope);
  if (!map) return undefined;
  for (const tag of tags) {
    const found = map.get(tag);
    if (found) return found;
  }
  return undefined;
}
