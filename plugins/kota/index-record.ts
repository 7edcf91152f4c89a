/**
 * Remembers, per repository root, the git HEAD an index was built at, so staleness survives new
 * sessions. Kept in `<agentDir>/pi-governor/kota-index.json` (KotaDB's own database does not record
 * HEAD). Read and write failures are ignored: staleness then reads as unknown, never as an error.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** What is recorded per repository root. */
export interface IndexRecord {
  head: string | undefined;
  repositoryId: string | undefined;
  /** Epoch milliseconds. */
  indexedAt: number;
  stats?: Record<string, unknown>;
}

/** The record file under `agentDir`. */
export function recordFile(agentDir: string): string {
  return join(agentDir, "pi-governor", "kota-index.json");
}

function readAll(file: string): Record<string, IndexRecord> {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof data === "object" && data !== null ? (data as Record<string, IndexRecord>) : {};
  } catch {
    return {};
  }
}

/** The record of `root`, if any. */
export function readIndexRecord(agentDir: string, root: string): IndexRecord | undefined {
  return readAll(recordFile(agentDir))[root];
}

/** Stores the record of `root` (atomically: temp file, then rename). */
export function writeIndexRecord(agentDir: string, root: string, record: IndexRecord): void {
  const file = recordFile(agentDir);
  try {
    const all = readAll(file);
    all[root] = record;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // Best effort: without the record, staleness is unknown for the next session.
  }
}
