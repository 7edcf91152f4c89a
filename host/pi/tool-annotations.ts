/**
 * What the pi adapter knows about tools it does not govern: the behaviour hints pi reports for them
 * (pi 1.x gives MCP tools the annotations their server declares, in `pi.getAllTools()`), the MCP
 * server tool each of pi's MCP tools serves (its namespace), and whether this pi can end a run from a
 * blocked `tool_call`.
 */
import { piHashedIdentity, piMcpIdentity, piServerCutIdentity } from "../../lib/mcp-identity/index.ts";
import type { McpToolIdentity, ToolAnnotations } from "../../core/tool-types.ts";
import type { PiApi } from "./pi-api.ts";

const HINTS = ["readOnlyHint", "idempotentHint", "destructiveHint", "openWorldHint"] as const;

/**
 * pi's built-in tools declare no hints; these say what they do, so rules by hint treat them as the
 * MCP tools they resemble. Another extension's tool of the same name with its own hints wins.
 */
const PI_BUILTIN_HINTS: Readonly<Record<string, Readonly<ToolAnnotations>>> = Object.freeze({
  read: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  grep: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  find: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  ls: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  edit: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  write: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  // bash can do anything: the MCP defaults (may destroy, may reach the network) are right for it.
});

/** What the adapter knows of pi's tools: their hints, the MCP server tool each serves, the MCP servers. */
export interface HostTools {
  /** The behaviour hints of `toolName`: pi's (MCP tools' annotations), or the built-ins' stated ones, or `{}`. */
  annotations(toolName: string): Readonly<ToolAnnotations>;
  /**
   * The MCP server tool `toolName` serves, for pi's own MCP tools (from the namespace pi reports):
   * its identity as written, and the one it has if pi cut and hashed the name, or the server's tool
   * known by its hash when pi cut inside the server's name (lib/mcp-identity/tool-identity.ts). Empty for other tools.
   */
  mcpIdentities(toolName: string): McpToolIdentity[];
  /** The MCP servers pi reports tools of, read again now (servers connect in the background). */
  mcpServers(): string[];
  /**
   * The MCP servers extensions registered with pi (`pi.registerMcpServer`, pi 1.5+; `pi.getMcpServers`),
   * connected or not, that pi's resource tools may reach (not disabled, not hidden): empty on a pi
   * where extensions cannot register servers; undefined when pi lets them but cannot say which.
   */
  registeredMcpServers(): string[] | undefined;
  /**
   * Whether pi has a tool of this name (built-ins, other extensions', pi's MCP tools, pi-governor's):
   * any other name is one the model invented, of any length and content. True while pi's list
   * cannot be read yet.
   */
  has(toolName: string): boolean;
}

/**
 * Returns what pi reports of its tools. pi's tool list is read again only when a name is not in the
 * last copy (tools registered later, such as MCP servers that finished connecting), so a call costs a
 * map lookup. Tools without hints (pi's built-ins, pi before 1.x) get `{}`.
 */
export function hostToolsFrom(pi: Pick<PiApi, "getAllTools">): HostTools {
  const servers = pi as { getMcpServers?: () => unknown; registerMcpServer?: unknown };
  let known = new Map<string, KnownTool>();
  let readable = false;
  const reload = () => {
    const next = new Map<string, KnownTool>();
    try {
      for (const tool of pi.getAllTools()) {
        const { annotations: declared, namespace } = tool;
        const mcp = piMcpIdentity(tool.name, namespace);
        // A name pi cut inside the server's name: the namespace says which server, pi's hash which tool.
        const serverCut = piServerCutIdentity(tool.name, namespace);
        next.set(tool.name, {
          hints: declared ? hintsOf(declared) : (PI_BUILTIN_HINTS[tool.name] ?? NO_HINTS),
          ...(mcp ? { mcp } : {}),
          ...(serverCut ? { serverCut } : {}),
        });
      }
      readable = true;
    } catch {
      // Before pi bound the session its tool list cannot be read: no hints yet.
    }
    known = next;
  };
  const lookup = (toolName: string) => {
    if (!known.has(toolName)) reload();
    return known.get(toolName);
  };
  return {
    annotations: (toolName) => lookup(toolName)?.hints ?? PI_BUILTIN_HINTS[toolName] ?? NO_HINTS,
    mcpIdentities: (toolName) => {
      const tool = lookup(toolName);
      const plain = tool?.mcp;
      const hashed = plain && piHashedIdentity(toolName, plain);
      return [plain, hashed, tool?.serverCut].filter((id): id is McpToolIdentity => id !== undefined);
    },
    mcpServers: () => {
      reload();
      return [...new Set([...known.values()].flatMap((t) => (t.mcp ? [t.mcp.server] : t.serverCut ? [t.serverCut.server] : [])))];
    },
    has: (toolName) => lookup(toolName) !== undefined || !readable,
    registeredMcpServers: () => {
      if (typeof servers.getMcpServers !== "function") return typeof servers.registerMcpServer === "function" ? undefined : [];
      try {
        const list = servers.getMcpServers.call(pi);
        if (!Array.isArray(list)) return undefined;
        return list.flatMap((s: { name?: unknown; config?: { enabled?: unknown; exposure?: unknown } }) =>
          typeof s?.name === "string" && s.config?.enabled !== false && s.config?.exposure !== "hidden" ? [s.name] : [],
        );
      } catch {
        // Before pi bound the session it cannot say.
        return undefined;
      }
    },
  };
}

const NO_HINTS: Readonly<ToolAnnotations> = Object.freeze({});

/** What pi's list says of one tool: its hints, the MCP server tool it serves, or the server whose name pi cut in its name. */
interface KnownTool {
  hints: Readonly<ToolAnnotations>;
  mcp?: McpToolIdentity;
  serverCut?: McpToolIdentity;
}

/** Only the four MCP hints, only booleans: the rest of what a server declares is not trusted. */
function hintsOf(value: unknown): Readonly<ToolAnnotations> {
  if (!value || typeof value !== "object") return NO_HINTS;
  const out: ToolAnnotations = {};
  for (const hint of HINTS) {
    const v = (value as Record<string, unknown>)[hint];
    if (typeof v === "boolean") out[hint] = v;
  }
  return Object.freeze(out);
}

/**
 * True when pi ends a run after a batch of blocked calls that all say `terminate` (pi 0.84.1 and
 * later). pi-governor imports nothing from pi at run time, so this tells the line by a method it
 * gained in the same release series (`registerMarkdownTransformer`, 0.84.0).
 */
export function piHonoursTerminate(pi: object): boolean {
  return typeof (pi as { registerMarkdownTransformer?: unknown }).registerMarkdownTransformer === "function";
}
