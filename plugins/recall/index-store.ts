/**
 * The recall index: every governed tool output, chunked, in an SQLite FTS5 table ranked by BM25.
 *
 * `outputs` holds one row per tool result (who, when, where its full text is: the blob id); the FTS5
 * table `chunks` holds its text in line ranges. A chunk's rowid is `outputId * 65536 + chunkIndex`,
 * so an output's chunks are one rowid range: deleting them is a range scan, not a full-table scan.
 *
 * Tokenizer: unicode61 on the text (splits snake_case, a.b.c and paths) plus a `words` column with
 * compound identifiers split (camelCase, digits), see identifiers.ts. The `trigram` variant exists
 * for the measurement in test/bench/recall-tokenizer.bench.ts and is not used by the plugin.
 */
import type { PreparedBlob, TextRedactor } from "../../lib/blobs/index.ts";
import { columnText, MAX_COLUMN_CHARS, redactorForWrites } from "../../lib/redact/index.ts";
import { openDatabase, type SqliteDatabase } from "../../lib/sqlite/index.ts";
import { chunkText, DEFAULT_CHUNK_LIMITS, type ChunkLimits } from "./chunk.ts";
import { identifierWords, splitIdentifier } from "./identifiers.ts";
import { matchExpression, queryTerms } from "./query.ts";

/** Schema version in `PRAGMA user_version`. */
export const RECALL_SCHEMA_VERSION = 1;
/** Chunks per output addressable in the rowid scheme. */
export const CHUNK_SLOTS = 65_536;

/**
 * Longest text stored in each text column of `outputs`, in characters (lib/redact's columnText: the
 * execution log's helper): ids and names from the model or the provider, a path, an argument summary.
 * Rows written before the bound are read cut to it.
 */
export const OUTPUT_COLUMN_CHARS = {
  session_id: MAX_COLUMN_CHARS,
  project: 4096,
  tool: MAX_COLUMN_CHARS,
  args: 1024,
  tool_call_id: MAX_COLUMN_CHARS,
  blob_id: MAX_COLUMN_CHARS,
} as const;
type OutputColumn = keyof typeof OUTPUT_COLUMN_CHARS;
/** `o.<column>` read cut to its bound, as `alias`. */
const bounded = (column: OutputColumn, alias: string = column): string => `substr(o.${column}, 1, ${OUTPUT_COLUMN_CHARS[column]}) AS ${alias}`;

/** How the chunk text is tokenized. */
export type TokenizerVariant = "words" | "trigram";

/** One output to index. */
export interface OutputRecord {
  sessionId: string;
  /** The session's working directory (the "project" scope). */
  project: string;
  tool: string;
  /** Short argument summary, as placeholders show it. */
  args: string;
  /** User turn of the session (1 = first prompt; 0 before any). */
  turn: number;
  /** Epoch milliseconds. */
  atMs: number;
  toolCallId: string;
  /** Blob holding the exact full text. */
  blobId: string;
  isError: boolean;
  /** The full text (only the first `maxChunks` chunks are indexed). */
  text: string;
}

/**
 * An output waiting to be written. `text` set: store it as blob `blobId` (a value the store prepared
 * is written as it is; a string is redacted by the store); absent: read blob `blobId`.
 */
export type PendingOutput = Omit<OutputRecord, "text"> & { text?: string | PreparedBlob };

/** One search hit: the best chunk of one output. */
export interface SearchHit extends Omit<OutputRecord, "text"> {
  outputId: number;
  bytes: number;
  lines: number;
  firstLine: number;
  lastLine: number;
  /** Chunk text around the match; matched terms wrapped in `«` `»`. */
  snippet: string;
  /** BM25 score (lower is better). */
  rank: number;
}

/** Filters of a search. */
export interface SearchOptions {
  sessionId?: string;
  project?: string;
  tool?: string;
  /** Most hits (distinct outputs). Default 5. */
  limit?: number;
}

/** Per-tool totals for `/<root> recall` and the CLI. */
export interface ToolTotals {
  tool: string;
  outputs: number;
  bytes: number;
}

/** Options of a {@link RecallIndex}. */
export interface RecallIndexOptions {
  variant?: TokenizerVariant;
  chunk?: Partial<ChunkLimits>;
  readonly?: boolean;
  /**
   * Hides secrets in every text written (output, argument summary, tool name, call id): give the
   * session's redactor. Default: a redactor with the built-in rules. There is no unredacted insert.
   */
  redactor?: TextRedactor;
}

/** Characters redacted past the last one that can be indexed: longer than any secret a rule hides whole. */
const REDACT_MARGIN_CHARS = 64 * 1024;

/** Highlight markers around matched terms in snippets. */
export const HIGHLIGHT = ["«", "»"] as const;

/** Creates the tables of `variant` on `db` (idempotent). Throws when the database cannot. */
export function createRecallSchema(db: SqliteDatabase, variant: TokenizerVariant = "words"): void {
  const version = Number(db.pragma("user_version") ?? 0);
  if (version > RECALL_SCHEMA_VERSION)
    throw new Error(
      `recall index ${db.path} has schema version ${version}, newer than this pi-governor (${RECALL_SCHEMA_VERSION}); upgrade pi-governor or remove the file.`,
    );
  const fts =
    variant === "trigram"
      ? "CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(body, first_line UNINDEXED, last_line UNINDEXED, tokenize = 'trigram')"
      : "CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(body, words, first_line UNINDEXED, last_line UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')";
  db.exec(`
    CREATE TABLE IF NOT EXISTS outputs (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL, project TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
      turn INTEGER NOT NULL, at_ms INTEGER NOT NULL, tool_call_id TEXT NOT NULL, blob_id TEXT NOT NULL,
      bytes INTEGER NOT NULL, lines INTEGER NOT NULL, is_error INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS outputs_session ON outputs(session_id);
    CREATE INDEX IF NOT EXISTS outputs_blob ON outputs(blob_id);
    CREATE INDEX IF NOT EXISTS outputs_call ON outputs(tool_call_id);
    ${fts};
  `);
  if (version < RECALL_SCHEMA_VERSION) db.pragma(`user_version = ${RECALL_SCHEMA_VERSION}`);
}

/**
 * The index over an open database. Every method is synchronous and throws the driver's error; the
 * plugin's writer decides how to degrade.
 */
export class RecallIndex {
  readonly variant: TokenizerVariant;
  private readonly limits: ChunkLimits;
  private readonly redactor: TextRedactor;

  constructor(
    readonly db: SqliteDatabase,
    options: RecallIndexOptions = {},
  ) {
    this.variant = options.variant ?? "words";
    this.redactor = redactorForWrites(options.redactor);
    this.limits = { ...DEFAULT_CHUNK_LIMITS, ...options.chunk, maxChunks: Math.min(options.chunk?.maxChunks ?? DEFAULT_CHUNK_LIMITS.maxChunks, CHUNK_SLOTS) };
    if (options.readonly) {
      const version = Number(db.pragma("user_version") ?? 0);
      if (version !== RECALL_SCHEMA_VERSION)
        throw new Error(`${db.path} is not a recall index of this pi-governor (schema version ${version}, expected ${RECALL_SCHEMA_VERSION}).`);
    } else createRecallSchema(db, this.variant);
  }

  /** Opens (creating: dir 0700, file 0600, links refused) the index at `path`. Throws when it cannot. */
  static open(path: string, options: RecallIndexOptions & { busyTimeoutMs?: number } = {}): RecallIndex {
    const db = openDatabase(path, { busyTimeoutMs: options.busyTimeoutMs ?? 5, readonly: options.readonly ?? false });
    try {
      if (!options.readonly) {
        if (db.pragma("journal_mode") !== "wal") db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
      }
      return new RecallIndex(db, options);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** `text` as the index stores it: with every secret hidden. */
  private redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** `text` as column `column` stores it: redacted and bounded (lib/redact's columnText); filters compare with the same. */
  private column(column: OutputColumn, text: string): string {
    return columnText(text, OUTPUT_COLUMN_CHARS[column], this.redactor);
  }

  /**
   * Indexes `records` in one transaction; returns their output ids. Every text is redacted here,
   * whatever the caller did (only what can be indexed, plus a margin longer than any secret, is
   * read: the chunks stop at `maxChunks`).
   */
  addAll(records: readonly OutputRecord[]): number[] {
    const indexable = this.limits.maxChunks * this.limits.maxBytes + REDACT_MARGIN_CHARS;
    const insertOutput = this.db.prepare(
      "INSERT INTO outputs (session_id, project, tool, args, turn, at_ms, tool_call_id, blob_id, bytes, lines, is_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const insertChunk =
      this.variant === "trigram"
        ? this.db.prepare("INSERT INTO chunks (rowid, body, first_line, last_line) VALUES (?, ?, ?, ?)")
        : this.db.prepare("INSERT INTO chunks (rowid, body, words, first_line, last_line) VALUES (?, ?, ?, ?, ?)");
    return this.db.transaction(() =>
      records.map((r) => {
        const lines = r.text.length ? r.text.split("\n").length : 0;
        const text = this.redact(r.text.length > indexable ? r.text.slice(0, indexable) : r.text);
        const id = Number(
          insertOutput.run(
            this.column("session_id", r.sessionId),
            this.column("project", r.project),
            this.column("tool", r.tool),
            this.column("args", r.args),
            r.turn,
            Math.floor(r.atMs),
            this.column("tool_call_id", r.toolCallId),
            this.column("blob_id", r.blobId),
            Buffer.byteLength(r.text, "utf8"),
            lines,
            r.isError ? 1 : 0,
          ).lastInsertRowid,
        );
        chunkText(text, this.limits).forEach((c, i) => {
          const rowid = id * CHUNK_SLOTS + i;
          if (this.variant === "trigram") insertChunk.run(rowid, c.text, c.firstLine, c.lastLine);
          else insertChunk.run(rowid, c.text, identifierWords(c.text), c.firstLine, c.lastLine);
        });
        return id;
      }),
    );
  }

  /**
   * Outputs matching `query`, best BM25 first, one hit (the best chunk) per output. Every term must
   * match; when nothing does, any term may (`relaxed` says which pass answered).
   */
  search(query: string, options: SearchOptions = {}): { hits: SearchHit[]; relaxed: boolean } {
    const limit = Math.max(1, Math.min(options.limit ?? 5, 100));
    for (const mode of ["all", "any"] as const) {
      const match = matchExpression(query, mode, this.variant === "trigram");
      if (!match) return { hits: [], relaxed: false };
      const hits = this.run(match, options, limit, queryTerms(query));
      if (hits.length || mode === "any") return { hits, relaxed: mode === "any" };
    }
    return { hits: [], relaxed: false };
  }

  private run(match: string, options: SearchOptions, limit: number, terms: readonly string[]): SearchHit[] {
    const where: string[] = ["chunks MATCH ?"];
    const params: (string | number)[] = [match];
    // Stored values are redacted and bounded: compare with the value made the same way.
    if (options.sessionId !== undefined) where.push("o.session_id = ?"), params.push(this.column("session_id", options.sessionId));
    if (options.project !== undefined) where.push("o.project = ?"), params.push(this.column("project", options.project));
    if (options.tool !== undefined) where.push("o.tool = ?"), params.push(this.column("tool", options.tool));
    const weights = this.variant === "trigram" ? "bm25(chunks)" : "bm25(chunks, 1.0, 0.5)";
    // Over-fetch chunks, then keep each output's best one.
    const rows = this.db
      .prepare(
        `SELECT o.id AS outputId, ${bounded("session_id", "sessionId")}, ${bounded("project")}, ${bounded("tool")}, ${bounded("args")}, o.turn, o.at_ms AS atMs,
                ${bounded("tool_call_id", "toolCallId")}, ${bounded("blob_id", "blobId")}, o.bytes, o.lines, o.is_error AS isError, c.first_line AS firstLine, c.last_line AS lastLine,
                snippet(chunks, 0, '${HIGHLIGHT[0]}', '${HIGHLIGHT[1]}', '…', 12) AS snippet, c.body AS body, ${weights} AS rank
           FROM chunks c JOIN outputs o ON o.id = c.rowid / ${CHUNK_SLOTS}
          WHERE ${where.join(" AND ")}
          ORDER BY rank LIMIT ?`,
      )
      .all(...params, limit * 4) as unknown as Array<SearchHit & { body: string }>;
    const seen = new Set<number>();
    const hits: SearchHit[] = [];
    for (const r of rows) {
      if (seen.has(r.outputId)) continue;
      seen.add(r.outputId);
      const { body, ...hit } = r;
      // A match on a part of an identifier is in the words column: FTS5 highlights nothing in the
      // text, so mark the part where it stands.
      const snippet = r.snippet.includes(HIGHLIGHT[0]) ? r.snippet : (partSnippet(body, terms) ?? r.snippet);
      hits.push({ ...hit, snippet, isError: Boolean(r.isError), firstLine: Number(r.firstLine), lastLine: Number(r.lastLine) });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /** The newest output with `toolCallId` (and `sessionId` when given), or undefined. */
  byToolCallId(toolCallId: string, sessionId?: string): { tool: string; blobId: string; bytes: number } | undefined {
    const sql = `SELECT ${bounded("tool")}, ${bounded("blob_id", "blobId")}, o.bytes AS bytes FROM outputs o WHERE o.tool_call_id = ?${sessionId !== undefined ? " AND o.session_id = ?" : ""} ORDER BY o.id DESC LIMIT 1`;
    const id = this.column("tool_call_id", toolCallId);
    const row = this.db.prepare(sql).get(...(sessionId !== undefined ? [id, this.column("session_id", sessionId)] : [id]));
    return row ? { tool: String(row.tool), blobId: String(row.blobId), bytes: Number(row.bytes) } : undefined;
  }

  /** Outputs and bytes per tool (of one session when given), most bytes first. */
  totals(sessionId?: string): ToolTotals[] {
    const sql = `SELECT ${bounded("tool")}, COUNT(*) AS outputs, SUM(o.bytes) AS bytes FROM outputs o${sessionId !== undefined ? " WHERE o.session_id = ?" : ""} GROUP BY 1 ORDER BY bytes DESC`;
    return this.db
      .prepare(sql)
      .all(...(sessionId !== undefined ? [this.column("session_id", sessionId)] : []))
      .map((r) => ({ tool: String(r.tool), outputs: Number(r.outputs), bytes: Number(r.bytes) }));
  }

  /** Number of outputs indexed. */
  count(): number {
    return Number(this.db.prepare("SELECT COUNT(*) AS n FROM outputs").get()?.n ?? 0);
  }

  /** Distinct blob ids the index points to. */
  blobIds(): string[] {
    return this.db
      .prepare("SELECT DISTINCT blob_id AS id FROM outputs")
      .all()
      .map((r) => String(r.id));
  }

  /** Removes the outputs (and their chunks) whose blob is `blobId`; returns how many. */
  removeBlob(blobId: string): number {
    return this.removeWhere("blob_id = ?", [blobId]);
  }

  /** Keeps the newest `max` outputs, removing older ones; returns how many went. */
  keepNewest(max: number): number {
    const cutoff = this.db.prepare("SELECT id FROM outputs ORDER BY id DESC LIMIT 1 OFFSET ?").get(Math.max(0, Math.floor(max)));
    if (!cutoff) return 0;
    return this.removeWhere("id <= ?", [Number(cutoff.id)]);
  }

  /** Removes every output. */
  purge(): number {
    return this.db.transaction(() => {
      const n = this.count();
      this.db.exec("DELETE FROM outputs; DELETE FROM chunks;");
      return n;
    });
  }

  private removeWhere(condition: string, params: (string | number)[]): number {
    return this.db.transaction(() => {
      const ids = this.db
        .prepare(`SELECT id FROM outputs WHERE ${condition}`)
        .all(...params)
        .map((r) => Number(r.id));
      const delChunks = this.db.prepare("DELETE FROM chunks WHERE rowid >= ? AND rowid < ?");
      const delOutput = this.db.prepare("DELETE FROM outputs WHERE id = ?");
      for (const id of ids) {
        delChunks.run(id * CHUNK_SLOTS, (id + 1) * CHUNK_SLOTS);
        delOutput.run(id);
      }
      return ids.length;
    });
  }

  close(): void {
    this.db.close();
  }
}

/** Characters of context shown each side of a part match. */
const PART_CONTEXT = 60;

/**
 * The text around the first case-insensitive occurrence of a term (or a word of a camelCase term) in
 * `body`, with the occurrence highlighted; undefined when none occurs.
 */
export function partSnippet(body: string, terms: readonly string[]): string | undefined {
  const lower = body.toLowerCase();
  const needles = terms.flatMap((t) => [t, ...(/^[A-Za-z0-9]+$/.test(t) ? splitIdentifier(t) : [])]).filter((t) => t.length >= 2);
  for (const needle of needles.sort((a, b) => b.length - a.length)) {
    const at = lower.indexOf(needle.toLowerCase());
    if (at < 0) continue;
    const start = Math.max(0, at - PART_CONTEXT);
    const end = Math.min(body.length, at + needle.length + PART_CONTEXT);
    return `${start > 0 ? "…" : ""}${body.slice(start, at)}${HIGHLIGHT[0]}${body.slice(at, at + needle.length)}${HIGHLIGHT[1]}${body.slice(at + needle.length, end)}${end < body.length ? "…" : ""}`;
  }
  return undefined;
}
