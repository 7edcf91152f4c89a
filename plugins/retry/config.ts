/**
 * The `retry` config section: schema and defaults in one place.
 *
 * ```json
 * { "retry": { "maxAttempts": 3, "tools": ["my_safe_tool"], "perTool": { "kota_search": { "maxAttempts": 2 } } } }
 * ```
 */
import { z } from "zod";
import { boundedRecord, toolListSchema, toolNameSchema } from "../../lib/config/index.ts";

/** Categories retry may be configured to retry. auth, invalid_input, budget, spawn and circuit_open are never retried. */
export const RETRYABLE_CATEGORIES = ["network", "connection_lost", "rate_limit", "mcp", "unknown"] as const;

const perToolSchema = z
  .object({
    enabled: z.boolean().optional().describe("Retry this tool at all (overrides onlySafeTools)."),
    maxAttempts: z.number().int().min(1).max(10).optional(),
    retryTimeouts: z.boolean().optional(),
    baseDelayMs: z.number().int().min(0).max(60_000).optional(),
    maxDelayMs: z.number().int().min(0).max(300_000).optional(),
  })
  .strict();

/** The schema of the `retry` section (without `enabled`, which definePlugin adds). */
export const retrySchema = z.object({
  maxAttempts: z.number().int().min(1).max(10).describe("Attempts per call including the first (1 = never retry). Default 3."),
  retryOn: z
    .array(z.enum(RETRYABLE_CATEGORIES))
    .max(RETRYABLE_CATEGORIES.length)
    .describe('Error categories that are retried. Default ["network", "connection_lost", "rate_limit"].'),
  retryTimeouts: z
    .boolean()
    .describe("Also retry TIMEOUT_EXCEEDED attempts and timeout errors. A timed-out call tells the model to reassess instead, so default false."),
  baseDelayMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .describe("Backoff before retry n is random in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))) (full jitter), in milliseconds. Default 250."),
  maxDelayMs: z.number().int().min(0).max(300_000).describe("Cap of one backoff, in milliseconds. Default 8000."),
  maxRetryAfterMs: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .describe("A server's retry-after hint is honoured up to this many milliseconds; a longer hint ends retrying. Default 30000."),
  onlySafeTools: z.boolean().describe("Retry only tools marked readOnlyHint or idempotentHint, or listed in `tools`. Default true."),
  tools: toolListSchema().describe("Tools retried even without a read-only/idempotent annotation. Default []."),
  perTool: boundedRecord(toolNameSchema(), perToolSchema).describe(
    "Per-tool overrides by tool name: enabled, maxAttempts, retryTimeouts, baseDelayMs, maxDelayMs. Default {}.",
  ),
  budget: z
    .object({
      ratio: z.number().min(0).max(10).describe("Retries allowed per first attempt within the window (0.2 = retries may add 20% to the calls). Default 0.2."),
      minRetries: z.number().int().min(0).max(1_000).describe("Retries always allowed within the window, however few calls ran (the floor). Default 5."),
      windowMs: z.number().int().min(1000).max(3_600_000).describe("Sliding window of the budget, in milliseconds. Default 60000."),
    })
    .strict()
    .describe("Retry budget per tool: a failing server cannot multiply the load (no retry storm)."),
});

/** The `retry` options (without `enabled`). */
export type RetryOptions = z.infer<typeof retrySchema>;

/** Defaults for the `retry` section. */
export const retryDefaults: RetryOptions = {
  maxAttempts: 3,
  retryOn: ["network", "connection_lost", "rate_limit"],
  retryTimeouts: false,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
  onlySafeTools: true,
  tools: [],
  perTool: {},
  budget: { ratio: 0.2, minRetries: 5, windowMs: 60_000 },
};

/** The effective settings for one tool, after its per-tool overrides. */
export interface ToolRetrySettings {
  maxAttempts: number;
  retryTimeouts: boolean;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  retryOn: ReadonlySet<string>;
}

/** Merges the per-tool overrides for `toolName` onto the section's values. */
export function settingsFor(options: RetryOptions, toolName: string): ToolRetrySettings {
  const o = options.perTool[toolName] ?? {};
  return {
    maxAttempts: o.maxAttempts ?? options.maxAttempts,
    retryTimeouts: o.retryTimeouts ?? options.retryTimeouts,
    baseDelayMs: o.baseDelayMs ?? options.baseDelayMs,
    maxDelayMs: o.maxDelayMs ?? options.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs,
    retryOn: new Set(options.retryOn),
  };
}
