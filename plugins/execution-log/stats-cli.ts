/**
 * `pi-governor stats [--db path] [--since 24h|2026-11-01] [--tool name] [--json]`: per-tool counts,
 * p50/p95 latency, timeouts, errors and retries from the execution log.
 */
import { existsSync } from "node:fs";
import { errorText } from "../../core/errors.ts";
import { agentDirFrom } from "../../lib/config/index.ts";
import { CANNOT_READ_EXIT, type CliCommand, configuredPath, parseCommandArgs } from "../../lib/cli-command/index.ts";
import { defaultDbPath } from "./config.ts";
import { openLogForReading } from "./open-db.ts";
import { isSqliteUnavailable, noSqliteText, tidyAfterReading } from "../../lib/sqlite/index.ts";
import { formatStats, MAX_TABLE_TOOLS, omittedTools, parseSince, readStats } from "./stats.ts";

const USAGE = `usage: pi-governor stats [--db path] [--since 24h|7d|2026-11-01] [--tool name] [--json]

Per-tool counts, p50/p95 latency (ms), timeouts, errors and retries from the execution log.
  --db path      the log (default: executionLog.dbPath of the global config, else
                 <agentDir>/pi-governor/executions.db; agentDir is PI_CODING_AGENT_DIR or ~/.pi/agent)
  --since when   only calls started since a duration ago (90s, 30m, 12h, 7d, 2w) or a date/time
  --tool name    only this tool
  --json         print JSON instead of a table (the same busiest 200 tools; the rest summed in "omitted")

Exits 0 (also when there is no log yet), 2 on a wrong argument, 3 when the log cannot be opened or
read. Where this Node has no SQLite driver, it runs again on the Node the \`pi\` command runs with.
`;

/** The `stats` command. Exit codes: 0 ok (also when there is no log yet), 2 bad arguments, 3 a log it cannot open or read. */
export const run: CliCommand = async (argv, io, context) => {
  const parsed = parseCommandArgs(argv, { db: { type: "string" }, since: { type: "string" }, tool: { type: "string" }, json: { type: "boolean" } }, USAGE, io, {
    maxPositionals: 0,
  });
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  // The log the plugin writes: executionLog.dbPath as the global config sets it.
  const path = values.db ?? (await configuredPath(context, "executionLog", "dbPath")) ?? defaultDbPath(agentDirFrom(process.env));
  let since: string | undefined;
  if (values.since !== undefined) {
    since = parseSince(values.since, Date.now());
    if (!since) {
      io.err(`pi-governor stats: cannot read --since "${values.since}"; use a duration like 30m, 12h, 7d or a date like 2026-11-01\n`);
      return 2;
    }
  }
  if (!existsSync(path)) {
    // --json means JSON on stdout whatever happened, so a script can always parse it.
    if (values.json) {
      io.out(`${JSON.stringify({ db: path, since: since ?? null, exists: false, tools: [] }, null, 2)}\n`);
      return 0;
    }
    io.out(`No execution log at ${path} yet: it is written once governed tools run (or pass --db).\n`);
    return 0;
  }
  let db;
  try {
    db = openLogForReading(path);
  } catch (error) {
    if (isSqliteUnavailable(error)) {
      const code = await context?.rerunWithSqlite?.();
      if (code !== undefined) return code;
      io.err(`pi-governor stats: cannot open ${path}: ${noSqliteText(error)}\n`);
      return CANNOT_READ_EXIT;
    }
    io.err(`pi-governor stats: cannot open ${path}: ${errorText(error)}\n`);
    return CANNOT_READ_EXIT;
  }
  try {
    const stats = readStats(db, { ...(since ? { since } : {}), ...(values.tool ? { tool: values.tool } : {}) });
    if (values.json) {
      // The same tools as the table: the busiest MAX_TABLE_TOOLS, the rest summed in `omitted`.
      const omitted = omittedTools(stats);
      io.out(
        `${JSON.stringify({ db: path, since: since ?? null, exists: true, tools: stats.slice(0, MAX_TABLE_TOOLS), ...(omitted ? { omitted } : {}) }, null, 2)}\n`,
      );
    } else if (stats.length === 0) {
      io.out(`${path}: no calls recorded${since ? ` since ${since}` : ""}${values.tool ? ` for ${values.tool}` : ""}.\n`);
    } else {
      io.out(`${path}${since ? ` (since ${since})` : ""}\n${formatStats(stats)}\n`);
    }
    return 0;
  } catch (error) {
    io.err(`pi-governor stats: cannot read ${path}: ${errorText(error)}\n`);
    return CANNOT_READ_EXIT;
  } finally {
    db.close();
    tidyAfterReading(path);
  }
};
