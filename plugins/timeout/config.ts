/**
 * The `timeout` config section: schema and defaults in one place.
 *
 * ```json
 * { "timeout": { "defaultMs": 300000, "perTool": { "kota_index": 600000 }, "totalMs": 0 } }
 * ```
 */
import { z } from "zod";
import { boundedRecord, toolNameSchema } from "../../lib/config/index.ts";
import { TOOL_TIMEOUT_MS } from "./constants.ts";

const limitMs = z
  .number()
  .int()
  .min(1)
  .max(24 * 3_600_000);

/** The schema of the `timeout` section (without `enabled`, which definePlugin adds). */
export const timeoutSchema = z.object({
  defaultMs: limitMs.describe("Limit of one attempt of a governed tool call, in milliseconds. Default 300000 (TOOL_TIMEOUT_MS, 5 minutes)."),
  perTool: boundedRecord(toolNameSchema(), limitMs).describe(
    'Per-tool attempt limits in milliseconds, by tool name, e.g. { "kota_index": 600000 }. Default {}.',
  ),
  totalMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3_600_000)
    .describe("Total deadline of a call across all attempts and retry backoff, in milliseconds; 0 = none. Retry never sleeps past it. Default 0."),
  // A second per-tool map rather than objects under perTool: perTool's values are plain numbers (the
  // attempt limit) in every config file written so far, and a number-or-object union would turn the
  // clear "use a number" message for a bad value into a vague one.
  perToolTotalMs: boundedRecord(
    toolNameSchema(),
    z
      .number()
      .int()
      .min(0)
      .max(24 * 3_600_000),
  ).describe("Per-tool total deadlines in milliseconds (0 = none), by tool name. Default {}."),
});

/** The `timeout` options (without `enabled`). */
export type TimeoutOptions = z.infer<typeof timeoutSchema>;

/** Defaults for the `timeout` section. */
export const timeoutDefaults: TimeoutOptions = {
  defaultMs: TOOL_TIMEOUT_MS,
  perTool: {},
  totalMs: 0,
  perToolTotalMs: {},
};

/** The attempt limit for `toolName`, in milliseconds. */
export function attemptLimitFor(options: TimeoutOptions, toolName: string): number {
  return options.perTool[toolName] ?? options.defaultMs;
}

/** The total deadline for `toolName`, in milliseconds (0 = none). */
export function totalLimitFor(options: TimeoutOptions, toolName: string): number {
  return options.perToolTotalMs[toolName] ?? options.totalMs;
}
