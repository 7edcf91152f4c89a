/**
 * Indexing: asks the user first (config `confirmIndex`), follows `indexWithoutUi` when there is no UI
 * to ask (print mode), and never runs twice at once: a second request while one is running (asking or
 * indexing) waits for the same outcome.
 *
 * A KotaDB crash during an index run leaves the index incomplete (KotaDB stores files before it
 * extracts symbols and references). The indexer remembers the interruption, so later kota_* calls say
 * so instead of "not indexed yet" (or, worse, answering from the partial index). The next kota_* call
 * re-runs the interrupted index once by itself: KotaDB's index_repository is idempotent (same
 * repository row, files replaced), and the user had already agreed to that run. At most one such
 * re-run per session, and none after a second crash: a crash loop stops there, and the user retries
 * with `/kota index` (or the model with kota_index) after reading KotaDB's stderr in `/kota status`.
 */
import { resolve, relative, isAbsolute } from "node:path";
import { errorText } from "../../core/errors.ts";
import { type GovernorError, type GovernorServices, InvalidInputError, isGovernorError, type UiBridge } from "../../core/index.ts";
import type { KotaOptions } from "./config.ts";
import { renderIndexRun } from "./render/index-stats.ts";
import { globalConfigFile } from "./runtime-check.ts";

/** Whether the repository is indexed, as the status line shows it. */
export type IndexedState = "no" | "yes" | "stale";

/**
 * What the indexer needs from the kota runtime (runtime.ts implements it). An interface, so this file
 * and the runtime that owns an indexer do not import each other.
 */
export interface IndexTarget {
  readonly config: Pick<KotaOptions, "confirmIndex" | "indexWithoutUi">;
  readonly services: Pick<GovernorServices, "clock" | "ui" | "logger" | "agentDir">;
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
  /** Skip the confirmation (the automatic re-run of an interrupted run the user already agreed to). */
  skipConfirm?: boolean;
}

/** Text the model gets when indexing needs a confirmation that print mode cannot ask; `configFile` is the user's global config file. */
export function noUiRefusal(configFile: string): string {
  return `Indexing needs the user's confirmation, and this session has no UI (print mode), so it was not started. Do not retry kota_index here. Tell the user to run \`/kota index\` in an interactive pi session, or to allow indexing without a UI with \`"kota": { "indexWithoutUi": "allow" }\` in ${configFile}. Meanwhile use read/grep/find.`;
}

/** Text the model gets when the user said no. */
export const DECLINED = "The user declined indexing the repository. Do not call kota_index again unless the user asks; use read/grep/find instead.";

/** An index run cut off by a KotaDB crash. */
export interface IndexInterruption {
  /** Epoch milliseconds of the last crash. */
  at: number;
  /** The last crash, as the connection reported it. */
  reason: string;
  /** Crashes during index runs this session (1, or 2 after the automatic re-run crashed too). */
  crashes: number;
  /** Whether the one automatic re-run of this session was used. */
  autoRerunUsed: boolean;
  /** What the interrupted run indexed (its `path`, undefined for the root). */
  path: string | undefined;
}

/** Single-flight indexer bound to one runtime. */
export class Indexer {
  private running: Promise<IndexOutcome> | undefined;
  /** The last index run, if a crash cut it off and no run completed since. */
  interruption: IndexInterruption | undefined;
  private autoRerunUsed = false;

  constructor(private readonly runtime: IndexTarget) {}

  /** Whether an index request (asking or indexing) is in progress. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Indexes if needed (or forced), asking first per config. Concurrent requests share one run. */
  request(req: IndexRequest): Promise<IndexOutcome> {
    if (this.running)
      return this.running.then((o) =>
        o.status === "indexed" ? { ...o, text: `${o.text}\n(An index run was already in progress; this request waited for it.)` } : o,
      );
    this.running = this.run(req).finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Before a kota_* query: when an index run was interrupted by a crash, re-runs it once per session
   * (no new confirmation: the user agreed to that run) and returns a note for the answer; throws a
   * clear error when the re-run is used up or crashed too. Returns undefined when nothing was interrupted.
   */
  async recoverInterrupted(signal?: AbortSignal): Promise<string | undefined> {
    const was = this.interruption;
    if (!was) return undefined;
    if (was.autoRerunUsed || was.crashes > 1) throw this.interruptedError(was);
    this.autoRerunUsed = true;
    was.autoRerunUsed = true;
    this.runtime.services
      .ui()
      .notify("pi-governor: KotaDB crashed during the last index run; re-running it once now (KotaDB indexing is idempotent).", "warning");
    // Wait for the restarted server first: read-only calls wait for the reconnect, index_repository does not.
    await this.runtime.call("get_index_statistics", {}, signal);
    const outcome = await this.request({
      ui: this.runtime.services.ui(),
      force: true,
      requester: "Recovery after a KotaDB crash",
      skipConfirm: true,
      ...(was.path ? { path: was.path } : {}),
      ...(signal ? { signal } : {}),
    });
    if (outcome.status !== "indexed") throw this.interruptedError(was);
    return "Note: the previous index run was interrupted by a KotaDB crash; it was re-run once automatically and completed.";
  }

  /** The error later kota_* calls get while the last index run stays interrupted. */
  interruptedError(i: IndexInterruption): GovernorError {
    const when = new Date(i.at).toISOString().slice(11, 19);
    const why =
      i.crashes > 1
        ? `KotaDB crashed during indexing ${i.crashes} times this session (last at ${when} UTC: ${i.reason})`
        : `the last index run was interrupted by a KotaDB crash at ${when} UTC (${i.reason}), and the one automatic re-run of this session was already used`;
    return new InvalidInputError(`the KotaDB index is incomplete: ${why}`, {
      agentMessage: `The KotaDB index is incomplete: ${why}. It is not re-run automatically again, so a crash loop cannot start. Do not use kota_* answers until it is rebuilt. Tell the user to check KotaDB's stderr with /kota status and retry with /kota index (or call kota_index with force: true; the user is asked to confirm). Meanwhile use read/grep/find.`,
    });
  }

  /** The `/kota status` line about an interrupted index run, if any. */
  interruptionLine(): string | undefined {
    const i = this.interruption;
    if (!i) return undefined;
    const when = new Date(i.at).toISOString().slice(11, 19);
    const next =
      i.autoRerunUsed || i.crashes > 1 ? "not re-run automatically again; run /kota index to retry" : "the next kota_* call re-runs it once automatically";
    return `Last index: interrupted by a KotaDB crash at ${when} UTC (${i.crashes} crash(es) during indexing this session: ${i.reason}); the index is incomplete; ${next}.`;
  }

  private async run(req: IndexRequest): Promise<IndexOutcome> {
    const runtime = this.runtime;
    const root = await runtime.root();
    const target = req.path ? resolve(root, req.path) : root;
    const rel = relative(root, target);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new InvalidInputError(`path ${req.path} is outside the repository ${root}`, {
        agentMessage: `KotaDB only indexes inside ${root}; call kota_index without path.`,
      });
    }
    await runtime.probe(req.signal);
    const state = this.interruption ? "no" : await runtime.indexState();
    if (state === "yes" && !req.force) {
      return {
        status: "already",
        text: `Already indexed (${root}, at ${runtime.indexHead?.slice(0, 8) ?? "an unknown commit"}). Pass force: true to re-index.`,
      };
    }
    const config = runtime.config;
    if (config.confirmIndex && !req.skipConfirm) {
      if (!req.ui.hasUI) {
        if (config.indexWithoutUi !== "allow") return { status: "refused", text: noUiRefusal(globalConfigFile(runtime.services.agentDir)) };
      } else {
        const why = this.interruption
          ? "The last index run was interrupted by a KotaDB crash."
          : state === "stale"
            ? "The index is out of date (HEAD moved)."
            : state === "no"
              ? "The repository is not indexed yet."
              : "Re-index requested.";
        const ok = await req.ui.confirm(
          "Index repository with KotaDB?",
          `${why} ${req.requester} wants to index ${target} with KotaDB. The first run can take a while; KotaDB keeps its database outside the repository, in the pi agent folder. Index now?`,
        );
        if (!ok) return { status: "declined", text: DECLINED };
      }
    }
    const started = runtime.services.clock.now();
    let json: Record<string, unknown>;
    try {
      ({ json } = await runtime.call("index_repository", { repository: target, localPath: target }, req.signal));
    } catch (error) {
      // A crash cut off the running index ("not replayed"); a call refused while reconnecting never ran.
      if (isGovernorError(error) && error.category === "connection_lost" && (error as { reconnectStatus?: string }).reconnectStatus !== "attempting")
        this.recordCrash(error, req.path);
      throw error;
    }
    this.interruption = undefined;
    const stats = typeof json.stats === "object" && json.stats !== null ? (json.stats as Record<string, unknown>) : undefined;
    await runtime.markIndexed(typeof json.repositoryId === "string" ? json.repositoryId : undefined, stats);
    return { status: "indexed", text: renderIndexRun(json, target, runtime.services.clock.now() - started), stats };
  }

  private recordCrash(error: GovernorError, path: string | undefined): void {
    const crashes = (this.interruption?.crashes ?? 0) + 1;
    this.interruption = {
      at: this.runtime.services.clock.now(),
      reason: errorText(error).split("; it was not replayed")[0]!.slice(0, 300),
      crashes,
      autoRerunUsed: this.autoRerunUsed,
      path,
    };
    const next =
      this.autoRerunUsed || crashes > 1
        ? "It is not re-run automatically again; check /kota status and retry with /kota index."
        : "The next kota_* call re-runs it once automatically.";
    this.runtime.services.ui().notify(`pi-governor: KotaDB crashed while indexing; the index is incomplete. ${next}`, "warning");
    this.runtime.services.logger.warn("KotaDB crashed during indexing", { crashes, error: error.message });
  }
}
