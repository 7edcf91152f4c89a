/**
 * The plugin's metric instruments, created once per governor from one meter. With no meter provider
 * registered (and export off) they are @opentelemetry/api's no-ops.
 */
import type { Counter, Histogram, Meter } from "@opentelemetry/api";
import { METRIC } from "./attributes.ts";

/** Bucket bounds of the duration histogram, in seconds: 5 ms to 10 minutes. */
export const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Every instrument the plugin records with. */
export interface Instruments {
  calls: Counter;
  errors: Counter;
  retries: Counter;
  timeouts: Counter;
  breakerOpens: Counter;
  /** Seconds. */
  duration: Histogram;
  bytesKeptOut: Counter;
  tokensKeptOut: Counter;
  mcpReconnects: Counter;
}

/** Creates the instruments on `meter`. */
export function createInstruments(meter: Meter): Instruments {
  return {
    calls: meter.createCounter(METRIC.CALLS, { description: "Governed tool calls, by tool and final status.", unit: "{call}" }),
    errors: meter.createCounter(METRIC.ERRORS, {
      description: "Governed tool calls that did not succeed, by tool and error category (error.type).",
      unit: "{call}",
    }),
    retries: meter.createCounter(METRIC.RETRIES, { description: "Retries run (attempts after the first), by tool.", unit: "{retry}" }),
    timeouts: meter.createCounter(METRIC.TIMEOUTS, { description: "Attempts that hit their time limit, by tool.", unit: "{attempt}" }),
    breakerOpens: meter.createCounter(METRIC.BREAKER_OPENS, { description: "Circuit breaker openings, by circuit key.", unit: "{open}" }),
    duration: meter.createHistogram(METRIC.DURATION, {
      description: "Wall time of a governed tool call, retries included, by tool and final status.",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    bytesKeptOut: meter.createCounter(METRIC.BYTES_KEPT_OUT, {
      description: "Tool output bytes stored as blobs instead of sent to the model (full size minus excerpt), by tool.",
      unit: "By",
    }),
    tokensKeptOut: meter.createCounter(METRIC.TOKENS_KEPT_OUT, {
      description: "Estimated tokens pruning kept out of model requests (before minus after), summed per request.",
      unit: "{token}",
    }),
    mcpReconnects: meter.createCounter(METRIC.MCP_RECONNECTS, {
      description: "MCP server reconnects that recovered the connection, by server.",
      unit: "{reconnect}",
    }),
  };
}
