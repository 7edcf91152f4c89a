/**
 * `pi-governor search <query> [--session id] [--project dir] [--tool name] [--limit n] [--json]
 * [--db path] [--blobs dir]`: searches the recall index from a shell, read-only (pi may be writing it
 * at the same time). Hits whose blob is gone are left out. The defaults follow PI_CODING_AGENT_DIR
 * like the plugin's; the index folder and files are checked as the plugin checks them (no link, no
 * FIFO, nothing another user can write) before SQLite opens them.
 */
import { errorText } from "../../core/errors.ts";
import { agentDirFrom } from "../../lib/config/index.ts";
import { CANNOT_READ_EXIT, type CliCommand, configuredPath, parseCommandArgs, USAGE_EXIT } from "../../lib/cli-command/index.ts";
import { BlobStore, DEFAULT_BLOB_DIR, resolveBlobDir } from "../../lib/blobs/index.ts";
import { redactValue } from "../../lib/redact/index.ts";
import { isSqliteUnavailable, noSqliteText, tidyAfterReading } from "../../lib/sqlite/index.ts";
import { indexPathFor } from "./config.ts";
import { formatHits } from "./format.ts";
import { checkIndexFiles } from "./index-file.ts";
import { RecallIndex } from "./index-store.ts";
import { searchLive } from "./search.ts";

const USAGE = `usage: pi-governor search <words...> [options]

Finds earlier tool outputs in the recall index (every tool output the recall stage indexed, in every
project and session), best match first: for each hit the tool and its arguments, the turn, how long
ago, the line range with a snippet, and the blob_read call that opens those lines. Read-only, so it
is safe while pi runs. Exits 0 when something was found, 1 when nothing was (or there is no index
yet), 2 on a wrong argument, 3 when the index cannot be opened or read. Where this Node has no
SQLite driver, it runs again on the Node the \`pi\` command runs with.

options:
  --session <id>   only outputs of this pi session (default: every session)
  --project <dir>  only outputs of sessions that ran in <dir> (the project's folder)
  --tool <name>    only outputs of this tool, e.g. read, bash, kota_search
  --limit <n>      most hits shown, 1 to 100 (default 10)
  --json           print the hits as JSON instead of text
  --db <path>      the index file (default: recall.dbPath of the global config, else
                   ~/.pi/cache/pi-governor/recall/index.db, or
                   <PI_CODING_AGENT_DIR>/cache/pi-governor/recall/index.db)
  --blobs <dir>    the blob folder the outputs are in (default: blobs.dir of the global config, else
                   ~/.pi/cache/pi-governor/blobs, or <PI_CODING_AGENT_DIR>/cache/pi-governor/blobs)
  -h, --help       this text
`;

/** How long the CLI waits for pi's write lock, in ms (nothing else runs on its thread). */
const READER_BUSY_TIMEOUT_MS = 2_000;

/** The `search` command: searches the recall index read-only. */
export const run: CliCommand = async (argv, io, context) => {
  const parsed = parseCommandArgs(
    argv,
    {
      session: { type: "string" },
      project: { type: "string" },
      tool: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
      db: { type: "string" },
      blobs: { type: "string" },
    },
    USAGE,
    io,
  );
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const query = positionals.join(" ").trim();
  if (!query) {
    io.err(`pi-governor search: give the words to find.\n\n${USAGE}`);
    return USAGE_EXIT;
  }
  const limit = values.limit === undefined ? 10 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    io.err(`pi-governor search: --limit must be a whole number from 1 to 100, got ${JSON.stringify(values.limit)}.\n`);
    return USAGE_EXIT;
  }
  const agentDir = agentDirFrom(process.env);
  // The folders the plugins use: recall.dbPath and blobs.dir as the global config sets them.
  const path = values.db
    ? resolveBlobDir(values.db)
    : indexPathFor((await configuredPath(context, "recall", "dbPath")) ?? "", { cwd: process.cwd(), agentDir });
  const blobDir = values.blobs ?? (await configuredPath(context, "blobs", "dir"));
  let index: RecallIndex;
  try {
    if ((await checkIndexFiles(path, { create: false })) === "missing") {
      io.err(`pi-governor search: no recall index at ${path} yet (the recall plugin creates it when pi runs a tool; pass --db for another file).\n`);
      return 1;
    }
    index = RecallIndex.open(path, { readonly: true, busyTimeoutMs: READER_BUSY_TIMEOUT_MS });
  } catch (error) {
    if (isSqliteUnavailable(error)) {
      const code = await context?.rerunWithSqlite?.();
      if (code !== undefined) return code;
      io.err(`pi-governor search: cannot open the recall index ${path}: ${noSqliteText(error)}\n`);
      return CANNOT_READ_EXIT;
    }
    io.err(`pi-governor search: cannot open the recall index ${path}: ${errorText(error)}\n`);
    return CANNOT_READ_EXIT;
  }
  try {
    const store = new BlobStore({ dir: blobDir ? resolveBlobDir(blobDir) : resolveBlobDir(DEFAULT_BLOB_DIR, { agentDir }) });
    const filter = {
      ...(values.session ? { sessionId: values.session } : {}),
      ...(values.project ? { project: resolveBlobDir(values.project) } : {}),
      ...(values.tool ? { tool: values.tool } : {}),
      limit,
    };
    const found = await searchLive(index, store, query, filter, false);
    // Rows are redacted when written; an index written by an older version may still hold secrets,
    // so what is printed is redacted once more.
    const hits = redactValue(found.hits, store);
    const relaxed = found.relaxed;
    if (values.json) io.out(`${JSON.stringify({ query, relaxed, hits }, null, 2)}\n`);
    else
      io.out(
        `${formatHits(query, hits, { nowMs: Date.now(), maxBytes: 64 * 1024, relaxed, scope: values.session ? `session ${values.session}` : "all", showSession: !values.session })}\n`,
      );
    return hits.length ? 0 : 1;
  } catch (error) {
    io.err(`pi-governor search: cannot read the recall index ${path}: ${errorText(error)}\n`);
    return CANNOT_READ_EXIT;
  } finally {
    index.close();
    tidyAfterReading(path);
  }
};
