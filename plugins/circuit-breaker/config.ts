/**
 * The `breaker` config section: schema and defaults in one place.
 *
 * ```json
 * { "breaker": { "failureThreshold": 5, "cooldownMs": 30000, "scope": "server", "perTool": { "kota_index": { "enabled": false } } } }
 * ```
 */
import { z } from "zod";
import { boundedRecord, toolNameSchema } from "../../lib/config/index.ts";

/** Failure categories the breaker may count. The model's own mistakes (invalid_input, mcp errors) are not in the default. */
export const COUNTABLE_CATEGORIES = ["timeout", "network", "connection_lost", "rate_limit", "spawn", "mcp", "auth", "unknown"] as const;

const perToolSchema = z
  .object({
    enabled: z.boolean().optional(),
    failureThreshold: z.number().int().min(1).max(1000).optional(),
    cooldownMs: z.number().int().min(1).max(3_600_000).optional(),
  })
  .strict();

/** The schema of the `breaker` section (without `enabled`, which definePlugin adds). */
export const breakerSchema = z.object({
  failureThreshold: z.number().int().min(1).max(1000).describe("Consecutive failures that open the circuit. Default 5."),
  failureRatio: z.number().min(0).max(1).describe("Also open when at least this share of the last `ratioWindow` calls failed (0 = off). Default 0."),
  ratioWindow: z.number().int().min(2).max(1000).describe("Calls the failure ratio looks at (the ratio is judged only once the window is full). Default 20."),
  cooldownMs: z
    .number()
    .int()
    .min(1)
    .max(3_600_000)
    .describe("How long an open circuit fails fast before one probe call is let through, in milliseconds. Default 30000."),
  countCategories: z
    .array(z.enum(COUNTABLE_CATEGORIES))
    .max(COUNTABLE_CATEGORIES.length)
    .describe(
      'Error categories that count as failures (TIMEOUT_EXCEEDED always counts). Default ["timeout", "network", "connection_lost", "rate_limit", "spawn"].',
    ),
  scope: z
    .enum(["tool", "server"])
    .describe(
      '"tool": one circuit per tool; "server": tools sharing a `server:<name>` or `mcp:<name>` tag (or, without one, the registering plugin) share one circuit. Default "tool".',
    ),
  perTool: boundedRecord(toolNameSchema(), perToolSchema).describe("Per-tool overrides by tool name: enabled, failureThreshold, cooldownMs. Default {}."),
});

/** The `breaker` options (without `enabled`). */
export type BreakerOptions = z.infer<typeof breakerSchema>;

/** Defaults for the `breaker` section. */
export const breakerDefaults: BreakerOptions = {
  failureThreshold: 5,
  failureRatio: 0,
  ratioWindow: 20,
  cooldownMs: 30_000,
  countCategories: ["timeout", "network", "connection_lost", "rate_limit", "spawn"],
  scope: "tool",
  perTool: {},
};
