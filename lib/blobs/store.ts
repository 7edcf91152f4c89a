import { createHash } from "node:crypto";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError } from "../../core/index.ts";
import { writeBlobAtomically, type WrittenBlob } from "./atomic-write.ts";
import { assertBlobId, assertBlobIdPrefix, BLOB_FILE_PATTERN, shortId } from "./blob-id.ts";
import { checkBlobDir } from "./cache-dir.ts";
import { isInsideDir } from "./paths.ts";
import { readBytePage, readRange, type BytePage } from "./read-bytes.ts";
import { grepBlob, readLinePage, type GrepOptions, type GrepResult, type LinePage } from "./read-pages.ts";
import type { SafePattern } from "../regex/index.ts";
import { listBlobs, purgeBlobs, sweepBlobs, type BlobEntry, type SweepReport } from "./retention.ts";
import { redactorForWrites, type TextRedactor } from "../redact/index.ts";

/** What hides secrets in text: lib/redact's `Redactor`, or anything with its `redact`. */
export type { TextRedactor };

/**
 * Text made ready for the store by {@link BlobStore.prepare}: redacted, with the id `put` will store
 * it under. Only the store that made it writes it without redacting again.
 */
export interface PreparedBlob {
  /** sha256 of the UTF-8 bytes of `text`, lowercase hex: the id `put` returns. */
  readonly id: string;
  /** UTF-8 size of `text`. */
  readonly bytes: number;
  /** The redacted text. */
  readonly text: string;
}

/** Default total size of the cache: 250 MiB (262,144,000 bytes). */
export const DEFAULT_BLOB_MAX_BYTES = 262_144_000;
/** Default maximum age of a blob: 14 days. */
export const DEFAULT_BLOB_MAX_AGE_DAYS = 14;
/** Temporary files older than this (10 minutes) are crash leftovers. */
export const DEFAULT_TEMP_GRACE_MS = 10 * 60_000;

/** Options of a {@link BlobStore}. */
export interface BlobStoreOptions {
  /**
   * Absolute directory (resolve `~` first with `resolveBlobDir`). Created 0700 on first write. Every
   * operation first checks it (see `checkBlobDir`): a symbolic link, another user's directory, a
   * group/world-writable one or a pseudo file system is refused with a BlobDirError naming the fix.
   */
  dir: string;
  /** Retention: total bytes kept. Default {@link DEFAULT_BLOB_MAX_BYTES}. */
  maxBytes?: number;
  /** Retention: maximum age in days. Default {@link DEFAULT_BLOB_MAX_AGE_DAYS}. */
  maxAgeDays?: number;
  /** Age after which a temporary file counts as a crash leftover, in milliseconds. Default 10 minutes. */
  tempGraceMs?: number;
  /** Wall clock in epoch milliseconds (retention compares file times). Default `Date.now`. */
  now?: () => number;
  /**
   * Hides secrets in every byte written: give the session's redactor (its literal values and added
   * shapes). Default: a redactor with the built-in rules. There is no way to write unredacted.
   */
  redactor?: TextRedactor;
}

/**
 * A content-addressed store of tool outputs: the id is the sha256 of the bytes. Every write is
 * redacted here, whatever the caller did before (pi's full-output file, a budget's first answer, cut
 * arguments): secrets never reach the cache. Writes are atomic and private (dir 0700, files 0600),
 * identical content is stored once, reads are bounded pages.
 * Blob files are opened without following links and must be regular files of the current user.
 * Keeps an in-memory set of ids the current session points to, which retention never evicts.
 */
export class BlobStore {
  /** Absolute directory of the cache. */
  readonly dir: string;
  private readonly maxBytes: number;
  private readonly maxAgeMs: number;
  private readonly tempGraceMs: number;
  private readonly now: () => number;
  private readonly referenced = new Set<string>();
  private sweeping: Promise<SweepReport> | undefined;
  private readonly redactor: TextRedactor;
  /** The values this store's prepare() made: written as they are (anything else is redacted). */
  private readonly prepared = new WeakSet<object>();

  constructor(options: BlobStoreOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? DEFAULT_BLOB_MAX_BYTES;
    this.maxAgeMs = (options.maxAgeDays ?? DEFAULT_BLOB_MAX_AGE_DAYS) * 86_400_000;
    this.tempGraceMs = options.tempGraceMs ?? DEFAULT_TEMP_GRACE_MS;
    this.now = options.now ?? Date.now;
    this.redactor = redactorForWrites(options.redactor);
  }

  /** `text` as this store writes it: with every secret the redactor knows hidden. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /**
   * Redacts `text` and computes the id it will be stored under, without writing: for a caller that
   * must name the blob before the write (which may run later). `put(prepared)` writes it as it is.
   */
  prepare(text: string): PreparedBlob {
    const redacted = this.redact(text);
    const prepared: PreparedBlob = Object.freeze({
      id: createHash("sha256").update(redacted, "utf8").digest("hex"),
      bytes: Buffer.byteLength(redacted, "utf8"),
      text: redacted,
    });
    this.prepared.add(prepared);
    return prepared;
  }

  /**
   * Stores `data` redacted, as UTF-8, and marks it referenced by this session (a value from this
   * store's {@link prepare} is redacted already; any other is redacted here). Streams the text in
   * chunks while hashing, so a 100 MB output is not copied whole. Throws when the directory cannot
   * be created or written (the caller decides how to degrade).
   */
  async put(data: string | PreparedBlob): Promise<WrittenBlob> {
    const text =
      typeof data === "object" && data !== null && this.prepared.has(data)
        ? data.text
        : this.redact(typeof data === "string" ? data : String(data?.text ?? ""));
    await checkBlobDir(this.dir, { create: true });
    const written = await writeBlobAtomically(this.dir, text);
    this.referenced.add(written.id);
    return written;
  }

  /** Marks `id` as pointed to by the current session: retention will not evict it. */
  reference(id: string): void {
    this.referenced.add(assertBlobId(id));
  }

  /** Ids the current session points to. */
  referencedIds(): ReadonlySet<string> {
    return this.referenced;
  }

  /**
   * The full id of the one stored blob whose id starts with `idOrPrefix` (8 to 64 hex digits, case
   * ignored; see `assertBlobIdPrefix`). A full id is returned as it is, without a look at the disk.
   * Throws an InvalidInputError for a malformed prefix, for none found, and for a prefix that more
   * than one stored blob starts with (naming up to 5 of them: pass more digits).
   */
  async resolve(idOrPrefix: unknown): Promise<string> {
    const prefix = assertBlobIdPrefix(idOrPrefix);
    if (prefix.length === 64) return prefix;
    const found = new Set<string>();
    if ((await checkBlobDir(this.dir, { create: false })) === "ready") {
      for (const name of await readdir(this.dir)) {
        const id = name.startsWith(prefix) ? BLOB_FILE_PATTERN.exec(name)?.[1] : undefined;
        if (id) found.add(id);
      }
    }
    if (found.size === 1) return [...found][0]!;
    if (!found.size) {
      throw new InvalidInputError(`no blob starting with ${prefix} in ${this.dir}`, {
        agentMessage: "The stored output is gone (purged or expired). Re-run the original tool call, narrowed, instead.",
      });
    }
    const some = [...found].sort().slice(0, 5);
    throw new InvalidInputError(
      `blob id prefix ${prefix} is ambiguous: ${found.size} stored blobs start with it (${some.join(", ")}${found.size > some.length ? ", …" : ""})`,
      {
        agentMessage: "Pass more hex digits of the blob id (all 64 are never ambiguous).",
      },
    );
  }

  /** The stored file of `id`. Throws an InvalidInputError for a malformed or unknown id. */
  async locate(id: string): Promise<{ path: string; bytes: number; mtimeMs: number }> {
    assertBlobId(id);
    if ((await checkBlobDir(this.dir, { create: false })) === "ready") {
      for (const ext of [".txt", ".json"]) {
        const path = join(this.dir, `${id}${ext}`);
        // lstat: a link under a blob's name is not a blob (the readers refuse it again at open time).
        const s = await lstat(path).catch(() => undefined);
        if (s?.isFile()) return { path, bytes: s.size, mtimeMs: s.mtimeMs };
      }
    }
    throw new InvalidInputError(`no blob ${shortId(id)} in ${this.dir}`, {
      agentMessage: "The stored output is gone (purged or expired). Re-run the original tool call, narrowed, instead.",
    });
  }

  /** Raw bytes `[offset, offset + length)` of a blob. */
  async readBytes(id: string, offset: number, length: number): Promise<Buffer> {
    return readRange((await this.locate(id)).path, offset, length);
  }

  /** A text page by byte offset, cut on character boundaries; see {@link readBytePage}. */
  async readBytePage(id: string, offset: number, limit: number): Promise<BytePage> {
    return readBytePage((await this.locate(id)).path, offset, limit);
  }

  /** A page of lines (1-based `fromLine`), bounded by `maxLines` and `maxBytes`; see {@link readLinePage}. */
  async readLinePage(id: string, fromLine: number, maxLines: number, maxBytes: number, signal?: AbortSignal): Promise<LinePage> {
    return readLinePage((await this.locate(id)).path, fromLine, maxLines, maxBytes, signal);
  }

  /** Lines matching `pattern` (a string is compiled case-insensitive), bounded and abortable; see {@link grepBlob}. */
  async grep(id: string, pattern: SafePattern | string, options: GrepOptions = {}): Promise<GrepResult> {
    return grepBlob((await this.locate(id)).path, pattern, options);
  }

  /** The `limit` most recent blobs (default 20), newest first, and the cache totals. */
  async list(limit = 20): Promise<{ entries: BlobEntry[]; count: number; totalBytes: number }> {
    const all = (await checkBlobDir(this.dir, { create: false })) === "ready" ? await listBlobs(this.dir) : [];
    return { entries: all.slice(0, limit), count: all.length, totalBytes: all.reduce((s, e) => s + e.bytes, 0) };
  }

  /** Applies retention now. Concurrent calls share one sweep. */
  sweep(): Promise<SweepReport> {
    this.sweeping ??= checkBlobDir(this.dir, { create: false })
      .then((state) =>
        state === "missing"
          ? { removed: 0, freedBytes: 0, tempRemoved: 0, remaining: 0, remainingBytes: 0 }
          : sweepBlobs(this.dir, { maxBytes: this.maxBytes, maxAgeMs: this.maxAgeMs, keep: this.referenced, now: this.now(), tempGraceMs: this.tempGraceMs }),
      )
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  /** Removes every blob (and temporary file). The user's purge; asks nothing. */
  async purge(): Promise<{ removed: number; freedBytes: number }> {
    if ((await checkBlobDir(this.dir, { create: false })) === "missing") return { removed: 0, freedBytes: 0 };
    return purgeBlobs(this.dir);
  }

  /** True when `path` (absolute or relative to `cwd`) lies inside the cache directory. */
  contains(path: string, cwd?: string): boolean {
    return isInsideDir(this.dir, path, cwd);
  }
}
