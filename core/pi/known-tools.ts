/**
 * Whether pi has a tool of a given name (pi's built-ins, other extensions' tools, pi's own MCP tools,
 * pi-governor's): a call the model makes to any other name is to a tool it invented, and the name is
 * the model's text, of any length and content.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

/**
 * A lookup of pi's tool names. pi's list is read again only when a name is not in the last copy
 * (tools registered later, MCP servers that finished connecting), so a known name costs a set lookup
 * and an invented one a read of pi's list.
 */
export function piToolNamesFrom(pi: Pick<ExtensionAPI, "getAllTools">): (toolName: string) => boolean {
  let names = new Set<string>();
  return (toolName) => {
    if (names.has(toolName)) return true;
    try {
      names = new Set(pi.getAllTools().map((t) => t.name));
    } catch {
      // Before pi bound the session its tool list cannot be read: every name counts as known.
      return true;
    }
    return names.has(toolName);
  };
}
