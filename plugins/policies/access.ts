/**
 * Allow / deny / ask: the first rule whose tool glob and behaviour hints match a call decides; `deny`
 * globs (the one key a project may set) refuse before any rule. Hints follow MCP's defaults where a
 * tool says nothing: not read-only, may destroy data, may reach an open world.
 */
import type { ToolAnnotations } from "../../core/index.ts";
import type { AccessRule } from "./config.ts";
import { toolGlobMatches } from "./tool-glob.ts";

/** What the rules decided for one call, and which rule (its index in `policies.rules`, -1 for `deny`). */
export type AccessDecision = { action: "allow" | "deny" | "ask"; rule: number } | undefined;

/** The hints of a tool with MCP's defaults filled in. */
export function effectiveHints(hints: Readonly<ToolAnnotations>): { readOnly: boolean; destructive: boolean; openWorld: boolean } {
  const readOnly = hints.readOnlyHint === true;
  return { readOnly, destructive: !readOnly && hints.destructiveHint !== false, openWorld: hints.openWorldHint !== false };
}

/**
 * Decides a call: undefined when nothing matches (the call runs). `matches` says whether a glob
 * names the call for a rule of that action (default: its name; the policies plugin also tries the
 * MCP server tool it reaches, and where pi cut a tool's name, a glob that may name it counts for
 * `deny` and `ask` and only one that surely names it for `allow`).
 */
export function decideAccess(
  rules: readonly AccessRule[],
  deny: readonly string[],
  toolName: string,
  hints: Readonly<ToolAnnotations>,
  matches: (glob: string, action: AccessRule["action"]) => boolean = (glob) => toolGlobMatches(glob, toolName),
): AccessDecision {
  for (const glob of deny) if (matches(glob, "deny")) return { action: "deny", rule: -1 };
  const h = effectiveHints(hints);
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    if (!matches(r.tools, r.action)) continue;
    if (r.readOnly !== undefined && r.readOnly !== h.readOnly) continue;
    if (r.destructive !== undefined && r.destructive !== h.destructive) continue;
    if (r.openWorld !== undefined && r.openWorld !== h.openWorld) continue;
    return { action: r.action, rule: i };
  }
  return undefined;
}

/** The rule in words, for messages: `policies.rules[2] ({"tools":"mcp__*","destructive":true,"action":"ask"})`. */
export function describeRule(rules: readonly AccessRule[], decision: NonNullable<AccessDecision>): string {
  return decision.rule < 0 ? "policies.deny" : `policies.rules[${decision.rule}] (${JSON.stringify(rules[decision.rule])})`;
}
