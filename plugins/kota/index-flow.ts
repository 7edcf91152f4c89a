/**
 * Indexing: asks the user first (config `confirmIndex`), follows `indexWithoutUi` when there is no UI
 * to ask (print mode), and never runs twice at once: a second request while one is running (asking or
 * indexing) waits for the same outcome.
 */
import { resolve, relative, isAbsolute } from "node:path";
import { InvalidInputError, type Clock, type UiBridge } from "../../core/index.ts";
import type { KotaOptions } from "./config.ts";
import { renderIndexRun } from "./render/index-stats.ts";

/** Whether the repository is indexed, as the status line shows it. */
export type IndexedState = "no" | "yes" | "stale";

/**
 * What the indexer needs from the kota runtime (runtime.ts implements it). An interface, so this file
 * and the runtime that owns an indexer do not import each other.
 */
export interface IndexTarget {
  readonly config: Pick<KotaOptions, "confirmIndex" | "indexWithoutUi">;
  readonly services: { readonly clock: Clock };
  /** HEAD the index was built at (undefined: unknown). */
  readonly indexHead: string | undefined;
  root(): Promise<string>;
  probe(signal?: AbortSignal): Promise<void>;
  indexState(): Promise<IndexedState>;
  call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ json: Record<string, unknown> }>;
  markIndexed(repositoryId: string | undefined, stats: Record<string, unknown> | undefined): Promise<void>;
}

/** How an index request ended. */
export type IndexOutcome =
  | { status: "indexed"; text: string; stats: Record<string, unknown> | undefined }
  | { status: "already"; text: string }
  | { status: "declined" | "refused"; text: string };

/** What the caller asks for. */
export interface IndexRequest {
  ui: UiBridge;
  /** Re-index even when the index is fresh. */
  force?: boolean;
  /** Directory to index, relative to the repo root or absolute inside it. Default: the repo root. */
  path?: string;
  signal?: AbortSignal;
  /** Who asks, for the confirmation text ("the model", "autoContext", "/kota index"). */
  requester: string;
}

/** Text the model gets when indexing needs a confirmation that print mode cannot ask. */
export const NO_UI_REFUSAL =
  'Indexing needs the user\'s confirmation, and this session has no UI (print mode), so it was not started. Do not retry kota_index here. Tell the user to run `/kota index` in an interactive pi session, or to allow indexing without a UI with `"kota": { "indexWithoutUi": "allow" }` in ~/.pi/agent/pi-governor.json. Meanwhile use read/grep/find.';

/** Text the model gets when the user said no. */
export const DECLINED =
  "The user declined indexing the repository. Do not call kota_index again unless the user asks; use read/grep/find instead.";

/** Single-flight indexer bound to one runtime. */
export class Indexer {
  private running: Promise<IndexOutcome> | undefined;

  constructor(private readonly runtime: IndexTarget) {}

  /** Whether an index request (asking or indexing) is in progress. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Indexes if needed (or forced), asking first per config. Concurrent requests share one run. */
  request(req: IndexRequest): Promise<IndexOutcome> {
    if (this.running) return this.running.then((o) => (o.status === "indexed" ? { ...o, text: `${o.text}\n(An index run was already in progress; this request waited for it.)` } : o));
    this.running = this.run(req).finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(req: IndexRequest): Promise<IndexOutcome> {
    const runtime = this.runtime;
    const root = await runtime.root();
    const target = req.path ? resolve(root, req.path) : root;
    const rel = relative(root, target);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new InvalidInputError(`path ${req.path} is outside the repository ${root}`, { agentMessage: `KotaDB only indexes inside ${root}; call kota_index without path.` });
    }
    await runtime.probe(req.signal);
    const state = await runtime.indexState();
    if (state === "yes" && !req.force) {
      return { status: "already", text: `Already indexed (${root}, at ${runtime.indexHead?.slice(0, 8) ?? "an unknown commit"}). Pass force: true to re-index.` };
    }
    const config = runtime.config;
    if (config.confirmIndex) {
      if (!req.ui.hasUI) {
        if (config.indexWithoutUi !== "allow") return { status: "refused", text: NO_UI_REFUSAL };
      } else {
        const why = state === "stale" ? "The index is out of date (HEAD moved)." : state === "no" ? "The repository is not indexed yet." : "Re-index requested.";
        const ok = await req.ui.confirm("Index repository with KotaDB?", `${why} ${req.requester} wants to index ${target} with KotaDB. The first run can take a while; KotaDB writes ${root}/.kotadb/ and adds it to .gitignore. Index now?`);
        if (!ok) return { status: "declined", text: DECLINED };
      }
    }
    const started = runtime.services.clock.now();
    const { json } = await runtime.call("index_repository", { repository: target, localPath: target }, req.signal);
    const stats = typeof json.stats === "object" && json.stats !== null ? (json.stats as Record<string, unknown>) : undefined;
    await runtime.markIndexed(typeof json.repositoryId === "string" ? json.repositoryId : undefined, stats);
    return { status: "indexed", text: renderIndexRun(json, target, runtime.services.clock.now() - started), stats };
  }
}
