/**
 * The `policies` config section: limits on how many calls a turn or a run may make, and which calls
 * run, which are refused and which the user is asked about. Everything that loosens a policy
 * (`limits`, `rules`, switching the plugin off) is trusted: only the global file sets it. A project
 * file may only add `deny` globs, which tighten: every source's globs are in force together.
 *
 * ```json
 * { "policies": {
 *     "limits": [{ "tools": "*", "perTurn": 40, "perRun": 400, "onExceed": "stop" }],
 *     "rules": [{ "tools": "mcp__*", "destructive": true, "action": "ask" }],
 *     "deny": ["mcp__github__delete_*"],
 *     "repeatedCalls": { "enabled": true } } }
 * ```
 */
import { z } from "zod";
import { MAX_TOOL_GLOB_CHARS } from "./tool-glob.ts";

const toolGlob = z
  .string()
  .min(1)
  .max(MAX_TOOL_GLOB_CHARS)
  .regex(/^[A-Za-z0-9_*.:/-]+$/, "a tool name or glob: letters, digits, _ - . : / and * (any run)");

const limitSchema = z
  .object({
    tools: toolGlob.describe('Tools this limit counts, by name glob. Default "*" (every call).').default("*"),
    perTurn: z.number().int().min(1).max(100_000).optional().describe("Calls one turn (a model request and the calls it makes) may make."),
    perRun: z.number().int().min(1).max(1_000_000).optional().describe("Calls one run (a prompt and every turn it leads to) may make."),
    onExceed: z
      .enum(["refuse", "stop"])
      .default("refuse")
      .describe('"refuse": the call over the limit is refused and the model may go on; "stop": the run ends after this batch of calls. Default "refuse".'),
  })
  .strict()
  .refine((l) => l.perTurn !== undefined || l.perRun !== undefined, "set perTurn, perRun or both");

const ruleSchema = z
  .object({
    tools: toolGlob.describe('Tools this rule covers, by name glob. Default "*".').default("*"),
    readOnly: z.boolean().optional().describe("Only tools that say they change nothing (MCP readOnlyHint), or only those that do not."),
    destructive: z
      .boolean()
      .optional()
      .describe("Only tools that may destroy data (MCP destructiveHint; unsaid counts as true for tools that are not read-only)."),
    openWorld: z.boolean().optional().describe("Only tools that may reach outside the machine (MCP openWorldHint; unsaid counts as true)."),
    action: z
      .enum(["allow", "deny", "ask"])
      .describe('"allow" runs the call, "deny" refuses it, "ask" asks the user (pi\'s confirm dialog; refused where no one can answer, as in print mode).'),
  })
  .strict();

/** The schema of the `policies` section (without `enabled`, which definePlugin adds). */
export const policiesSchema = z.object({
  limits: z.array(limitSchema).max(50).describe("Call limits per turn and per run; every limit whose tools match a call counts it. Default [] (none)."),
  rules: z
    .array(ruleSchema)
    .max(100)
    .describe("Allow / deny / ask by tool glob and behaviour hints; the first rule that matches a call decides, and a call no rule matches runs. Default []."),
  deny: z
    .array(toolGlob)
    .max(100)
    .describe(
      "Tools refused outright, by name glob. The one key a project file may set, and only to deny more: its globs are added to the user's. Default [].",
    ),
  repeatedCalls: z
    .object({
      enabled: z.boolean().describe("Answer a repeated call from the earlier result. Default false."),
      maxEntries: z.number().int().min(1).max(256).describe("Results kept per run. Default 32."),
      maxBytes: z.number().int().min(1_024).max(16_777_216).describe("Largest result kept, in bytes of text. Default 262144."),
    })
    .strict()
    .describe(
      "A read-only, closed-world pi-governor tool (kota_*, managed MCP servers' tools marked read-only and not open-world) called again with the same arguments in the user's turn (the run one prompt starts) is answered from the first result, unless a call that may change files ran in between or beside it; the answer says so.",
    ),
});

/** The `policies` options (without `enabled`). */
export type PoliciesOptions = z.infer<typeof policiesSchema>;
/** One entry of `limits`: how often a tool may be called. */
export type CallLimit = PoliciesOptions["limits"][number];
/** One entry of `rules`: which calls are allowed, asked about or refused. */
export type AccessRule = PoliciesOptions["rules"][number];

/** Defaults: no limit, no rule, nothing denied, repeated calls run again. */
export const policiesDefaults: PoliciesOptions = {
  limits: [],
  rules: [],
  deny: [],
  repeatedCalls: { enabled: false, maxEntries: 32, maxBytes: 262_144 },
};
