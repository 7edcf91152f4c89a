/**
 * What a governor's tools add to every request pi sends: each tool's declaration (name, description,
 * parameter schema, as JSON) and the lines pi's default system prompt gets from it (`promptSnippet`
 * as `- name: snippet`, each `promptGuidelines` bullet as `- text`). A size in characters, paid on
 * every request of every session; `/governor status` prints it, an end-to-end test holds it against
 * what pi actually sends.
 */
import type { GovernedToolDefinition } from "../core/tool-types.ts";

/** The fixed overhead of a set of tools, in characters. */
export interface FixedOverhead {
  /** System prompt lines (snippets and guidelines). */
  promptChars: number;
  /** Tool declarations, as JSON. */
  schemaChars: number;
  /** Per tool: its declaration plus its prompt lines, in registration order. */
  perTool: Array<{ name: string; chars: number }>;
}

/** Characters the tool adds to pi's default system prompt. */
function promptLines(def: GovernedToolDefinition): number {
  let chars = def.promptSnippet ? `- ${def.name}: ${def.promptSnippet}\n`.length : 0;
  for (const g of def.promptGuidelines ?? []) chars += `- ${g}\n`.length;
  return chars;
}

/** The fixed overhead of `tools` (see the module comment). */
export function fixedOverhead(tools: Iterable<GovernedToolDefinition>): FixedOverhead {
  const out: FixedOverhead = { promptChars: 0, schemaChars: 0, perTool: [] };
  for (const def of tools) {
    const schema = JSON.stringify({ name: def.name, description: def.description, parameters: def.parameters }).length;
    const prompt = promptLines(def);
    out.promptChars += prompt;
    out.schemaChars += schema;
    out.perTool.push({ name: def.name, chars: schema + prompt });
  }
  return out;
}

/** `Fixed per-request overhead: 4,928 chars (system prompt 85 + tool schemas 4,843): a 917, b 472`. */
export function formatFixedOverhead(o: FixedOverhead): string {
  const n = (v: number) => v.toLocaleString("en-US");
  const tools = o.perTool.map((t) => `${t.name} ${n(t.chars)}`).join(", ");
  return `Fixed per-request overhead: ${n(o.promptChars + o.schemaChars)} chars (system prompt ${n(o.promptChars)} + tool schemas ${n(o.schemaChars)})${tools ? `: ${tools}` : ""}`;
}
