/**
 * The `chaos` config section: schema and defaults in one place. The whole section is trusted (it
 * breaks things on purpose): only the global file, `PI_GOVERNOR_CONFIG` or code may set it.
 *
 * ```json
 * { "chaos": { "enabled": true, "seed": 42, "faults": [
 *   { "type": "error", "tools": "kota_*", "probability": 0.1, "category": "network" },
 *   { "type": "latency", "tools": "*", "probability": 0.2, "minMs": 50, "maxMs": 500 } ] } }
 * ```
 */
import { z } from "zod";

/** Error categories the `error` fault can raise, each as the raw failure a real transport throws. */
export const CHAOS_ERROR_CATEGORIES = ["network", "rate_limit", "auth", "invalid_input", "connection_lost", "timeout", "mcp", "unknown"] as const;
/** One of {@link CHAOS_ERROR_CATEGORIES}. */
export type ChaosErrorCategory = (typeof CHAOS_ERROR_CATEGORIES)[number];

/** Upper bound of every duration, in milliseconds (10 minutes). */
const MAX_MS = 600_000;
/** Upper bound of an oversized output, in bytes (64 MiB). */
export const MAX_OVERSIZE_BYTES = 64 * 1024 * 1024;

const common = {
  tools: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Tool names this fault applies to, a glob (`*` any run of characters, `?` one character), e.g. "kota_*". Default "*".'),
  probability: z.number().min(0).max(1).describe("Chance per attempt that this fault fires (0..1)."),
};

const latency = z
  .object({
    type: z.literal("latency"),
    ...common,
    minMs: z.number().int().min(0).max(MAX_MS).describe("Shortest added delay before the real call, in milliseconds."),
    maxMs: z.number().int().min(0).max(MAX_MS).describe("Longest added delay, in milliseconds (equal to minMs: a fixed delay)."),
  })
  .strict()
  .describe("Delay the attempt, then make the real call.");
const error = z
  .object({
    type: z.literal("error"),
    ...common,
    category: z.enum(CHAOS_ERROR_CATEGORIES).describe("Which failure the transport appears to throw; it classifies to this category."),
    retryAfterMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_MS)
      .optional()
      .describe("rate_limit only: the retry-after the fake server sends, in milliseconds. Default: none sent."),
  })
  .strict()
  .describe("Fail the attempt without calling the tool, as the transport would.");
const isError = z
  .object({
    type: z.literal("isError"),
    ...common,
    text: z.string().min(1).max(500).optional().describe('The error text of the result. Default "simulated tool failure (injected by chaos)".'),
  })
  .strict()
  .describe("Answer with an isError result instead of calling the tool.");
const hang = z
  .object({
    type: z.literal("hang"),
    ...common,
    maxMs: z
      .number()
      .int()
      .min(1)
      .max(MAX_MS)
      .optional()
      .describe("The hang ends when the attempt is aborted (timeout, Esc) or after this many milliseconds, then the real call runs. Default 600000."),
  })
  .strict()
  .describe("Hang until the attempt's timeout aborts it.");
const oversize = z
  .object({
    type: z.literal("oversize"),
    ...common,
    bytes: z.number().int().min(1).max(MAX_OVERSIZE_BYTES).describe("Bytes of filler text appended to a successful answer (to exercise budgets and blobs)."),
  })
  .strict()
  .describe("Make the real call, then append filler text to its answer.");
const afterMs = {
  afterMinMs: z.number().int().min(0).max(MAX_MS).describe("Earliest moment after the attempt starts to signal the server, in milliseconds."),
  afterMaxMs: z.number().int().min(0).max(MAX_MS).describe("Latest moment, in milliseconds; the signal is sent only if the attempt is still running."),
};
const kill = z
  .object({ type: z.literal("kill"), ...common, ...afterMs })
  .strict()
  .describe("MCP-backed tools: SIGKILL the server process mid-call (a crash). Other tools are left alone.");
const stop = z
  .object({
    type: z.literal("stop"),
    ...common,
    ...afterMs,
    stopMs: z.number().int().min(1).max(60_000).describe("How long the server stays stopped (SIGSTOP) before SIGCONT, in milliseconds."),
  })
  .strict()
  .describe("MCP-backed tools: SIGSTOP the server process mid-call (a hang), SIGCONT after stopMs.");

/** One fault rule. */
export const faultRuleSchema = z.discriminatedUnion("type", [latency, error, isError, hang, oversize, kill, stop]);
/** One fault rule, parsed. */
export type FaultRule = z.infer<typeof faultRuleSchema>;
/** The kinds of fault: latency, error, isError, hang, oversize, kill, stop. */
export type FaultType = FaultRule["type"];

/** The schema of the `chaos` section (without `enabled`, which definePlugin adds). */
export const chaosSchema = z.object({
  seed: z
    .number()
    .int()
    .min(0)
    .max(4_294_967_295)
    .nullable()
    .describe("Seed of the fault dice: the same seed and call order inject the same faults. null: a new seed per session (logged). Default null."),
  startActive: z.boolean().describe("Inject from the start; false waits for `/<root> chaos on`. Default true."),
  faults: z
    .array(faultRuleSchema)
    .max(50)
    .describe(
      "Fault rules (latency, error, isError, hang, oversize, kill, stop; keys in docs/chaos.md), checked in order per attempt; the first whose dice hit fires. Default [].",
    ),
});

/** The `chaos` options (without `enabled`). */
export type ChaosOptions = z.infer<typeof chaosSchema>;

/** Defaults: no faults (the plugin itself is off unless the config enables it). */
export const chaosDefaults: ChaosOptions = { seed: null, startActive: true, faults: [] };

/** Every key of the section, `enabled` included: the whole section is trusted. */
export const CHAOS_TRUSTED_KEYS = ["enabled", ...Object.keys(chaosSchema.shape)] as const;

/** Cross-key rules: a range's minimum may not exceed its maximum. */
export function checkChaos(config: ChaosOptions): Array<{ keys: string[]; message: string }> {
  const out: Array<{ keys: string[]; message: string }> = [];
  config.faults.forEach((rule, i) => {
    if (rule.type === "latency" && rule.minMs > rule.maxMs)
      out.push({ keys: ["faults"], message: `faults[${i}] (latency): minMs ${rule.minMs} exceeds maxMs ${rule.maxMs}; make minMs <= maxMs` });
    if ((rule.type === "kill" || rule.type === "stop") && rule.afterMinMs > rule.afterMaxMs)
      out.push({
        keys: ["faults"],
        message: `faults[${i}] (${rule.type}): afterMinMs ${rule.afterMinMs} exceeds afterMaxMs ${rule.afterMaxMs}; make afterMinMs <= afterMaxMs`,
      });
  });
  return out;
}
