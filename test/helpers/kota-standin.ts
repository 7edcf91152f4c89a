/**
 * Config that points the kota plugin at the KotaDB stand-in (test/fixtures/kotadb-standin/) for a
 * fixture repo, and a reader for the stand-in's call log.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { standinCommand } from "../fixtures/kotadb-standin/command.ts";

/** The `kota` section that starts the stand-in; `env` goes to the stand-in (e.g. KOTADB_STANDIN_INDEX_DELAY_MS). */
export function standinKotaConfig(env: Record<string, string> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { command, args } = standinCommand();
  return { command, args, env, connectTimeoutMs: 20_000, ...extra };
}

/** Calls the stand-in received, from its KOTADB_STANDIN_LOG file. */
export function standinCalls(logFile: string): Array<{ name: string; args: Record<string, unknown> }> {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { name: string; args: Record<string, unknown> });
}

/** A call-log path inside `dir`. */
export const callLogIn = (dir: string): string => join(dir, "standin-calls.jsonl");
