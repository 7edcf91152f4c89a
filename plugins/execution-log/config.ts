/**
 * The `executionLog` config section: schema and defaults in one place.
 *
 * ```json
 * { "executionLog": { "dbPath": "", "batchSize": 50, "flushIntervalMs": 1000, "exclude": ["governor_status"] } }
 * ```
 */
import { join } from "node:path";
import { z } from "zod";
import { pathSchema, toolListSchema } from "../../lib/config/index.ts";

/** Longest `phase` label, in characters: it is written into every row, and a project file may set it. */
export const MAX_PHASE_CHARS = 64;

/** The schema of the `executionLog` section (without `enabled`, which definePlugin adds). */
export const executionLogSchema = z.object({
  dbPath: pathSchema().describe('SQLite file of the log; "" = <agentDir>/pi-governor/executions.db. Created with mode 0600. Default "".'),
  batchSize: z.number().int().min(1).max(10_000).describe("Rows buffered before a write is scheduled. Default 50."),
  flushIntervalMs: z
    .number()
    .int()
    .min(10)
    .max(600_000)
    .describe("Longest time a row waits in the buffer, in milliseconds (the timer never keeps the process alive). Default 1000."),
  maxBufferedRows: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .describe("Rows kept while the database is busy; older rows beyond this are dropped (counted in a warning). Default 10000."),
  phase: z
    .string()
    .max(MAX_PHASE_CHARS)
    .describe(`Free label written to the \`phase\` column (a project phase, a branch), at most ${MAX_PHASE_CHARS} characters. Default "".`),
  exclude: toolListSchema().describe("Tools not logged. Default []."),
});

/** The `executionLog` options (without `enabled`). */
export type ExecutionLogOptions = z.infer<typeof executionLogSchema>;

/** Defaults for the `executionLog` section. */
export const executionLogDefaults: ExecutionLogOptions = {
  dbPath: "",
  batchSize: 50,
  flushIntervalMs: 1_000,
  maxBufferedRows: 10_000,
  phase: "",
  exclude: [],
};

/** The log's default location under pi's agent directory. */
export function defaultDbPath(agentDir: string): string {
  return join(agentDir, "pi-governor", "executions.db");
}
