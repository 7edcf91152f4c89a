/**
 * The kota runtime of one governor: the repository root, the KotaDB connection (started lazily on the
 * first kota_* call or /kota status), the index state (`no | yes | stale`) and the status line. Tools,
 * commands and the autoContext plugin (through the `kota:runtime` service) all go through it, so there
 * is one connection and one indexing at a time per governor.
 */
import { existsSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { classifyError, contentText, type GovernorError, type GovernorServices, isGovernorError, SpawnError } from "../../core/index.ts";
import { contentBytes } from "../../lib/size/index.ts";
import { argsWithToolset, type KotaOptions } from "./config.ts";
import type { KotaConnection, KotaLaunch, KotaServerState } from "./connection.ts";
import { gitHead, gitRoot } from "../../lib/git/index.ts";
import { redactedCommandLine } from "../../lib/redact/index.ts";
import { REDACTOR } from "../redact/index.ts";
import { type IndexedState, Indexer, type IndexTarget } from "./index-flow.ts";
import { kotaDataDir, kotaDataEnv, neutralCwd } from "./isolation.ts";
import { BUN_INSTALL_HINT, commandExists, globalConfigFile, ignoredProjectLaunchNote, kotaStartHint, missingCommandText } from "./runtime-check.ts";

export type { IndexedState };

/** Builds the connection for a launch spec (the managed MCP server in production). */
export type ConnectionFactory = (launch: KotaLaunch) => KotaConnection;

/** A parsed KotaDB answer plus its raw size. */
export interface KotaAnswer {
  /** The pretty-printed JSON, parsed (or `{ text }` when the server sent something else). */
  json: Record<string, unknown>;
  /** UTF-8 bytes of the raw answer. */
  rawBytes: number;
}

/** Status line key. */
export const STATUS_KEY = "kota";
/** Status line text is refreshed at most this often from HEAD checks, in milliseconds. */
const HEAD_CHECK_INTERVAL_MS = 2_000;

/** The runtime; see the module comment. */
export class KotaRuntime implements IndexTarget {
  private conn: KotaConnection | undefined;
  private rootPromise: Promise<string> | undefined;
  private rootValue: string | undefined;
  private indexed: IndexedState | undefined;
  /** HEAD the index was built at (undefined: unknown). */
  indexHead: string | undefined;
  repositoryId: string | undefined;
  lastIndexStats: Record<string, unknown> | undefined;
  private headNow: string | undefined;
  private headCheckedAt = -Infinity;
  private staleWarnedFor: string | undefined;
  private unavailableNotified = false;
  private probing: Promise<void> | undefined;
  /** The one indexer of this runtime (tools, /kota index and autoContext share it). */
  readonly indexer: Indexer = new Indexer(this);

  constructor(
    readonly config: KotaOptions,
    readonly services: GovernorServices,
    private readonly makeConnection: ConnectionFactory,
    /** Reads and writes the HEAD record (see index-record.ts); injectable for tests. */
    readonly records: {
      read(root: string): { head: string | undefined; repositoryId: string | undefined } | undefined;
      write(root: string, head: string | undefined, repositoryId: string | undefined, stats: Record<string, unknown> | undefined): void;
    },
  ) {}

  /** The repository root: `git rev-parse --show-toplevel` from pi's cwd, else the cwd. */
  root(): Promise<string> {
    return (this.rootPromise ??= gitRoot(this.services.cwd).then((r) => (this.rootValue = r ?? this.services.cwd)));
  }

  /** Server state without starting anything (`closed`, after a session ended, shows as `stopped`). */
  serverState(): Exclude<KotaServerState, "closed"> {
    const state = this.conn?.state() ?? "stopped";
    return state === "closed" ? "stopped" : state;
  }

  /** The KotaDB child's pid while one runs (nothing is started to learn it). */
  serverPid(): number | undefined {
    return this.conn?.pid?.();
  }

  /** The connection's last error text. */
  lastServerError(): string | undefined {
    return this.conn?.lastError();
  }

  /** Connection details (uptime, reconnect history, last error), or undefined before the first start. */
  connectionStatus(): string | undefined {
    return this.conn?.statusText();
  }

  /** Index state; before KotaDB was asked, guessed from its database folder (see isolation.ts). */
  async indexState(): Promise<IndexedState> {
    // An index run cut off by a crash left a partial index: not usable until a run completes.
    if (this.indexer.interruption) return "no";
    if (this.indexed) return this.indexed;
    const root = await this.root();
    const dir = this.config.env.KOTADB_PATH ? undefined : kotaDataDir(this.services.agentDir, root);
    const onDisk = dir ? existsSync(join(dir, "kota.db")) : existsSync(this.config.env.KOTADB_PATH!);
    if (!onDisk) return "no";
    const record = this.records.read(root);
    this.indexHead ??= record?.head;
    this.repositoryId ??= record?.repositoryId;
    return (await this.isStale()) ? "stale" : "yes";
  }

  /** The start spec from config: see {@link kotaLaunch}. */
  private async launch(): Promise<KotaLaunch> {
    return kotaLaunch(this.config, this.services.env, this.services.agentDir, await this.root());
  }

  /**
   * KotaDB's command line for messages: option values that name a secret (`--token X`) and known
   * secret shapes hidden, when the redact plugin runs (it is on unless the user turned it off).
   */
  commandLine(): string {
    const redactor = this.services.maybe(REDACTOR);
    return redactor ? redactedCommandLine(this.config.command, this.config.args, redactor) : [this.config.command, ...this.config.args].join(" ");
  }

  /** Why the project's command/args/env/cwd are not in force ("" when no project file set them). */
  ignoredLaunchNote(): string {
    return ignoredProjectLaunchNote(this.services.ignoredTrustedKeys, this.services.agentDir);
  }

  private async connection(): Promise<KotaConnection> {
    if (this.conn) return this.conn;
    const launch = await this.launch();
    const pathVar = launch.env.PATH ?? this.services.env.PATH;
    if (!commandExists(launch.command, pathVar, launch.cwd)) {
      const text = withNote(missingCommandText(launch.command, globalConfigFile(this.services.agentDir)), this.ignoredLaunchNote());
      throw new SpawnError(`command not found: ${launch.command}`, { agentMessage: text });
    }
    this.conn = this.makeConnection(launch);
    this.conn.onStateChange(() => void this.updateStatus());
    return this.conn;
  }

  /** Calls a KotaDB tool and parses its pretty-printed JSON. Throws classified errors. */
  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<KotaAnswer> {
    try {
      const conn = await this.connection();
      const raw = await conn.callTool(tool, args, signal ? { signal } : {});
      const notice = conn.takeNotice();
      if (notice) {
        // A reconnect lost state (e.g. the index): forget what we knew and tell the user.
        this.indexed = undefined;
        this.services.ui().notify(`pi-governor: ${notice}`, "warning");
      }
      if (raw.isError) throw classifyError({ isError: true, content: raw.content }, { subject: `KotaDB ${tool}` });
      const text = contentText(raw.content);
      let json: Record<string, unknown>;
      try {
        const parsed = JSON.parse(text) as unknown;
        json = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
      } catch {
        json = { text };
      }
      return { json, rawBytes: contentBytes(raw.content) };
    } catch (error) {
      let classified: GovernorError = isGovernorError(error) ? error : classifyError(error, { subject: `KotaDB ${tool}` });
      if (classified.category === "spawn") {
        if (!/^command not found/.test(classified.message)) {
          // The command exists but KotaDB did not start: say where to look (stderr) and what to fix.
          classified = new SpawnError(classified.message, {
            agentMessage: withNote(
              `${kotaStartHint(this.config.command, this.config.args, globalConfigFile(this.services.agentDir), { ...(classified.stderrTail ? { stderrTail: classified.stderrTail } : {}), timedOut: false }, this.services.maybe(REDACTOR))} ${classified.agentMessage}`,
              this.ignoredLaunchNote(),
            ),
            cause: classified,
            ...(classified.stderrTail ? { stderrTail: classified.stderrTail } : {}),
          });
        }
        this.notifyUnavailableOnce(classified);
      }
      throw classified;
    } finally {
      void this.updateStatus();
    }
  }

  private notifyUnavailableOnce(error: GovernorError): void {
    if (this.unavailableNotified) return;
    this.unavailableNotified = true;
    this.services.ui().notify(`pi-governor: ${error.agentMessage}${error.stderrTail ? `\nKotaDB stderr: ${error.stderrTail}` : ""}`, "warning");
    this.services.logger.warn("KotaDB unavailable", { error: error.message });
  }

  /** Asks KotaDB once whether anything is indexed (get_index_statistics), then tracks state locally. */
  probe(signal?: AbortSignal): Promise<void> {
    if (this.indexed) return Promise.resolve();
    return (this.probing ??= (async () => {
      try {
        const { json } = await this.call("get_index_statistics", {}, signal);
        const root = await this.root();
        if (Number(json.files ?? 0) > 0) {
          const record = this.records.read(root);
          this.indexHead ??= record?.head;
          this.repositoryId ??= record?.repositoryId;
          this.indexed = (await this.isStale()) ? "stale" : "yes";
        } else this.indexed = "no";
      } finally {
        this.probing = undefined;
      }
    })());
  }

  /** Records a finished index run: state yes, HEAD now. */
  async markIndexed(repositoryId: string | undefined, stats: Record<string, unknown> | undefined): Promise<void> {
    const root = await this.root();
    this.indexHead = await gitHead(root);
    this.headNow = this.indexHead;
    this.headCheckedAt = this.services.clock.now();
    this.repositoryId = repositoryId;
    this.lastIndexStats = stats;
    this.indexed = "yes";
    this.staleWarnedFor = undefined;
    this.records.write(root, this.indexHead, repositoryId, stats);
    void this.updateStatus();
  }

  /** Whether HEAD moved since the index was built (false when either is unknown). */
  async isStale(): Promise<boolean> {
    const root = await this.root();
    if (this.services.clock.now() - this.headCheckedAt >= HEAD_CHECK_INTERVAL_MS) {
      this.headNow = await gitHead(root);
      this.headCheckedAt = this.services.clock.now();
    }
    const stale = !!this.indexHead && !!this.headNow && this.indexHead !== this.headNow;
    if (this.indexed === "yes" || this.indexed === "stale") this.indexed = stale ? "stale" : "yes";
    return stale;
  }

  /**
   * The once-per-HEAD stale warning: returned (for the tool result) and shown to the user the first
   * time a call finds the index stale for the current HEAD; undefined otherwise.
   */
  async staleNotice(): Promise<string | undefined> {
    if (!this.config.staleWarning || !(await this.isStale())) return undefined;
    if (this.staleWarnedFor === this.headNow) return undefined;
    this.staleWarnedFor = this.headNow;
    const text = `Note: the KotaDB index was built at commit ${this.indexHead?.slice(0, 8)} and HEAD is now ${this.headNow?.slice(0, 8)}; results may be out of date. Call kota_index to refresh it (the user is asked to confirm).`;
    this.services
      .ui()
      .notify(
        `pi-governor: KotaDB index is stale (built at ${this.indexHead?.slice(0, 8)}, HEAD ${this.headNow?.slice(0, 8)}). Run /kota index to refresh.`,
        "warning",
      );
    void this.updateStatus();
    return text;
  }

  /** The status line text: `kota: running · repo: name · indexed: yes`. */
  async statusLine(): Promise<string> {
    const root = await this.root();
    return `kota: ${this.serverState()} · repo: ${basename(root)} · indexed: ${await this.indexState()}`;
  }

  /** Pushes the status line to the UI (silent without one). */
  async updateStatus(): Promise<void> {
    try {
      this.services.ui().setStatus(STATUS_KEY, await this.statusLine());
    } catch (error) {
      this.services.logger.debug("status line update failed", { error: String(error) });
    }
  }

  /** Restarts the server (the next call starts it again). */
  /** Restarts the server now (or, when it never started, lets the next call start it); rejects when it does not start. */
  async restart(): Promise<void> {
    this.unavailableNotified = false;
    this.indexed = undefined;
    try {
      if (this.conn?.state() === "closed") this.conn = undefined;
      // Without a connection (never started, or the command was missing) the next call starts one,
      // looking the command up again: the user may have installed Bun since.
      await this.conn?.restart();
    } finally {
      void this.updateStatus();
    }
  }

  /** Closes the server; idempotent. */
  async close(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.close();
  }

  /** The root, if it was resolved already (synchronous, for status text). */
  get knownRoot(): string | undefined {
    return this.rootValue;
  }
}

/** Environment variables passed through to KotaDB (its own `env` config comes on top). */
const PASSED_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "SystemRoot", "APPDATA", "LOCALAPPDATA", "USERPROFILE"];

/**
 * How KotaDB starts for `config` and the repository `root`: cwd defaults to the filesystem root and
 * the database to a private folder under `agentDir` (created here; see isolation.ts: nothing the
 * repository ships runs in KotaDB); PATH, HOME and friends pass through from `env`. Shared by the
 * runtime and `pi-governor doctor`, so the doctor starts exactly what a session starts.
 */
export function kotaLaunch(
  config: KotaOptions,
  env: Readonly<Record<string, string | undefined>>,
  agentDir: string,
  root: string,
  /** A folder for KotaDB's database instead of the repository's own (the doctor's throwaway start); nothing else is created then. */
  scratchDir?: string,
): KotaLaunch {
  const passed: Record<string, string> = {};
  for (const key of PASSED_ENV) {
    const v = env[key];
    if (v !== undefined) passed[key] = v;
  }
  const data = scratchDir ? { KOTADB_PATH: join(scratchDir, "kota.db"), KOTADB_EXPORT_PATH: join(scratchDir, "export") } : kotaDataEnv(agentDir, root);
  if (!scratchDir && !config.env.KOTADB_PATH) mkdirSync(kotaDataDir(agentDir, root), { recursive: true, mode: 0o700 });
  return {
    command: config.command,
    args: argsWithToolset(config.args, config.toolset),
    cwd: config.cwd || neutralCwd(root),
    // The scratch folder wins over a configured KOTADB_PATH: the doctor's start writes nothing of the user's.
    env: scratchDir ? { ...passed, ...config.env, ...data } : { ...passed, ...data, ...config.env },
    connectTimeoutMs: config.connectTimeoutMs,
    installHint: config.command === "bun" ? BUN_INSTALL_HINT : `the "${config.command}" command`,
  };
}

function withNote(text: string, note: string): string {
  return note ? `${text} ${note}` : text;
}
