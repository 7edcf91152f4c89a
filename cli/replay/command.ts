/**
 * `pi-governor replay [session.jsonl | dir ...]`: replays recorded pi sessions through the configured
 * context pipeline (the real prune plugin) and shows what it would have sent and cost, against
 * sending the full history. With no argument it replays the bundled sample session.
 *
 * This folder is the replay: CLI tooling that the bench and tests share, above every plugin. It
 * reaches the prune plugin only through plugins/prune/index.ts (the architecture test holds it).
 */
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommandArgs, USAGE_EXIT } from "../../lib/cli-command/index.ts";
import type { CliCommand, CliIO } from "../../lib/cli-command/index.ts";
import { agentDirFrom } from "../../lib/config/index.ts";
import { loadPiSessionFormat } from "./pi-session-format.ts";
import { type ReplayConfig, replayConfig } from "./config.ts";
import { governorPolicy, noPruning, type Policy } from "./policies.ts";
import { hindsightRuns, MAX_SCHEDULE_REQUESTS, STEP_EVERY_REQUEST } from "./hindsight.ts";
import { addTotals, coldLine, fileLine, savingsLine, promptChart, totalsTable, turnTable, ZERO_TOTALS } from "./report.ts";
import { type ParsedSession, readSessionFile, type SessionMigration } from "./session-file.ts";
import { DEFAULT_MAX_SESSION_BYTES, MAX_FILE_MB } from "./session-read.ts";
import { type SimOptions, simulate } from "./simulate.ts";

/** The bundled sample session. */
export const SAMPLE_SESSION = join(dirname(fileURLToPath(import.meta.url)), "sample/session.jsonl");

/** How many of the user's sessions a run without arguments replays (the most recent ones). */
export const RECENT_SESSIONS = 5;

const USAGE = `usage: pi-governor replay [session.jsonl | dir ...] [options]

Replays every model call of pi session files with and without the configured pruning and prints
tokens sent, the largest prompt, prompt-cache breaks and cache-weighted cost (cached input 0.1x,
cache writes 1.25x) under two cache models: (a) any unchanged message prefix is cached; (b) only up to
a breakpoint an earlier call wrote (Anthropic, as pi marks them). It also says what the same pruning
would have saved perfectly timed, knowing each session to its end. Calls are priced at their real
times: a call that comes longer than the cache lifetime after the previous one (or the last cache
warming refresh pi recorded) finds the cache cold and reads nothing. The pruning simulated is yours:
the preset and prune settings your pi-governor config picks. No argument: your ${RECENT_SESSIONS} most recent
sessions in ~/.pi/agent/sessions (PI_CODING_AGENT_DIR/sessions), or the bundled sample when you have none.

options:
  --config <file>        read the config from this JSON file alone (default: your pi-governor config files)
  --system-tokens <n>    tokens of system prompt + tool definitions per call (default 4000)
  --window <n>           model context window in tokens (default 200000)
  --cache-lifetime <s>   seconds a prompt cache entry lives after its last use (default 300)
  --price <usd>          dollars per million fresh input tokens, for the cost column (default 3)
  --max-file-mb <n>      largest session file read, in MiB (default ${DEFAULT_MAX_SESSION_BYTES / 1024 / 1024}, at most ${MAX_FILE_MB.max}); larger files are skipped unread
  --no-chart             skip the chart
  --no-turns             skip the per-turn table
`;

interface Args {
  paths: string[];
  config?: string;
  systemTokens: number;
  window: number;
  price: number;
  /** Largest session file read, in bytes. */
  maxFileBytes: number;
  /** Seconds a prompt cache entry lives after its last use. */
  cacheLifetime: number;
  chart: boolean;
  turns: boolean;
}

/** Parses the command line; an exit code when the command is done (--help, or a usage error). */
function parseReplayArgs(argv: string[], io: CliIO): Args | number {
  const parsed = parseCommandArgs(
    argv,
    {
      config: { type: "string" },
      "system-tokens": { type: "string" },
      window: { type: "string" },
      price: { type: "string" },
      "max-file-mb": { type: "string" },
      "cache-lifetime": { type: "string" },
      "no-chart": { type: "boolean" },
      "no-turns": { type: "boolean" },
    },
    USAGE,
    io,
  );
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const number = (name: "system-tokens" | "window" | "price" | "max-file-mb" | "cache-lifetime", fallback: number): number | string => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const v = Number(raw);
    return raw.trim() !== "" && Number.isFinite(v) && v >= 0 ? v : `--${name} needs a non-negative number, got "${raw}"`;
  };
  const systemTokens = number("system-tokens", 4000);
  const window = number("window", 200_000);
  const price = number("price", 3);
  const cacheLifetime = number("cache-lifetime", 300);
  const maxFileMb = number("max-file-mb", DEFAULT_MAX_SESSION_BYTES / 1024 / 1024);
  const outOfRange =
    typeof maxFileMb === "number" && !(Number.isInteger(maxFileMb) && maxFileMb >= MAX_FILE_MB.min && maxFileMb <= MAX_FILE_MB.max)
      ? `--max-file-mb needs a whole number from ${MAX_FILE_MB.min} to ${MAX_FILE_MB.max}, got "${values["max-file-mb"]}"`
      : undefined;
  const bad = [systemTokens, window, price, cacheLifetime, maxFileMb, outOfRange].find((v) => typeof v === "string");
  if (bad !== undefined) {
    io.err(`${bad}\n\n${USAGE}`);
    return USAGE_EXIT;
  }
  return {
    paths: parsed.positionals,
    ...(values.config !== undefined ? { config: values.config } : {}),
    systemTokens: systemTokens as number,
    window: window as number,
    price: price as number,
    maxFileBytes: (maxFileMb as number) * 1024 * 1024,
    cacheLifetime: cacheLifetime as number,
    chart: !values["no-chart"],
    turns: !values["no-turns"],
  };
}

/** A session file to read: one the user named (a link is followed) or one found in a folder (never a link). */
interface SessionSource {
  path: string;
  named: boolean;
}

/** Session files under `path`: the file itself, or every .jsonl file up to 3 folders deep. */
function sessionFiles(path: string): SessionSource[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new Error(`no such file or directory: ${path}`);
  }
  if (!stat.isDirectory()) return [{ path, named: true }];
  const out: SessionSource[] = [];
  // Links and anything but a plain file (FIFOs, devices) are left out; the open checks again.
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory() && depth < 3) walk(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push({ path: full, named: false });
    }
  };
  walk(path, 0);
  if (!out.length) throw new Error(`no .jsonl session files in ${path}`);
  return out;
}

/** The user's most recent pi sessions (`<agentDir>/sessions`, newest first), or [] when there are none. */
export function recentSessions(agentDir: string, count = RECENT_SESSIONS): string[] {
  const dir = join(agentDir, "sessions");
  let files: string[];
  try {
    files = sessionFiles(dir).map((s) => s.path);
  } catch {
    return [];
  }
  const mtime = (f: string) => {
    try {
      return statSync(f).mtimeMs;
    } catch {
      return 0;
    }
  };
  return files
    .map((f) => ({ f, t: mtime(f) }))
    .sort((x, y) => y.t - x.t)
    .slice(0, count)
    .map((x) => x.f);
}

function reportProblems(io: CliIO, session: ParsedSession): void {
  for (const p of session.problems.slice(0, 10)) io.err(`${session.path}: ${p}\n`);
  if (session.problems.length > 10) io.err(`${session.path}: ... and ${session.problems.length - 10} more problem(s)\n`);
}

/** What the per-turn table's columns mean, printed under it. */
export const TURN_TABLE_LEGEND = `How to read this table:
  turn         one user prompt and all the model calls the agent made to answer it
  calls        model calls in the turn (one per assistant reply, tool-using steps included)
  last prompt  tokens sent with the turn's last model call, without and with pruning (tokens = characters / 4)
  input cost   what the turn's input cost, in thousands of token-equivalents: fresh input counts 1x,
               input read from the provider's prompt cache 0.1x, input written to it 1.25x (cache model b)
  cache breaks calls whose prompt could not reuse the cache, under two cache models:
               a = any unchanged start of the prompt is cached (OpenAI-style automatic caching);
               b = only the part up to a cache breakpoint an earlier call set is cached (Anthropic, as pi sets them).
               "ab" means both models broke on that call; "c" marks a call that found the cache cold (it came
               longer than the cache lifetime after the previous call and read nothing, whatever was sent).`;

/** The `replay` command. */
export const run: CliCommand = async (argv, io) => {
  const args = parseReplayArgs(argv, io);
  if (typeof args === "number") return args;
  const env = process.env;
  const sessionsDir = join(agentDirFrom(env), "sessions");
  const recent = args.paths.length ? [] : recentSessions(agentDirFrom(env));
  const sample = !args.paths.length && !recent.length;
  const paths = args.paths.length ? args.paths : recent.length ? recent : [SAMPLE_SESSION];
  let files: SessionSource[];
  let config: ReplayConfig;
  try {
    // The user's recent sessions are files found in a folder: read like any other found file.
    files = args.paths.length ? paths.flatMap(sessionFiles) : paths.map((path) => ({ path, named: path === SAMPLE_SESSION }));
    config = await replayConfig({ ...(args.config ? { configFile: args.config } : {}), cwd: process.cwd(), env });
  } catch (error) {
    io.err(`pi-governor replay: ${(error as Error).message}\n`);
    return 2;
  }
  for (const problem of config.problems) io.err(`pi-governor replay: config ${problem} (using the valid parts)\n`);
  const format = await loadPiSessionFormat(env.PATH);
  const what = sample
    ? `the bundled sample session, generated by cli/replay/sample/generate.ts (not a real recording: you have no sessions in ${sessionsDir} yet)`
    : recent.length
      ? `your ${recent.length === 1 ? "most recent session" : `${recent.length} most recent sessions`} in ${sessionsDir}`
      : files.length === 1
        ? relative(process.cwd(), files[0]!.path) || files[0]!.path
        : `${files.length} session files`;
  io.out(`pi-governor replay: ${what}\n`);
  io.out(`  simulating your pruning: preset "${config.preset}", prune ${config.prune.enabled === false ? "off" : "on"} (config: ${config.sources})\n`);
  io.out(
    `  sessions read with ${format ? `pi ${format.pi.version}'s session reader (${format.pi.scope})` : "pi-governor's own reader (pi not found: sessions older than format version 2 are skipped)"}\n`,
  );
  io.out(
    `  assumed: ${args.systemTokens.toLocaleString("en-US")} tokens of system prompt + tool definitions per call; ${args.window.toLocaleString("en-US")}-token context window; tokens = characters / 4; a cache entry lives ${args.cacheLifetime.toLocaleString("en-US")} s after its last use\n\n`,
  );
  const replay = new ReplaySums(args, config, files.length === 1);
  for (const source of files) await replay.session(source, format?.migrate, io);
  if (!replay.replayed) {
    io.err("pi-governor replay: nothing to replay\n");
    return 1;
  }
  replay.printTotals(io);
  return 0;
};

/** The replay of each session file through both policies, and the sums over them. */
class ReplaySums {
  base = ZERO_TOTALS;
  pruned = ZERO_TOTALS;
  replayed = 0;
  /** Sums over the sessions a perfectly timed schedule was computed for: without pruning, pruned, perfectly timed. */
  private readonly timing = { base: ZERO_TOTALS, pruned: ZERO_TOTALS, costPrefix: 0, costBreakpoint: 0, sessions: 0 };
  private readonly policy: Policy;
  private readonly everyRequest: Policy;
  private readonly pruning: boolean;
  private readonly sim: SimOptions;

  constructor(
    private readonly args: Args,
    config: ReplayConfig,
    private readonly single: boolean,
  ) {
    this.policy = governorPolicy({ prune: config.prune, fold: config.fold, contextWindow: args.window });
    this.pruning = config.prune.enabled !== false;
    this.everyRequest = governorPolicy({ prune: { ...config.prune, ...STEP_EVERY_REQUEST }, fold: config.fold, contextWindow: args.window });
    this.sim = { systemTokens: args.systemTokens, contextWindow: args.window, cacheLifetimeMs: args.cacheLifetime * 1000 };
  }

  /** Reads, replays and reports one session file; a file that cannot be read or has no model call is skipped, said on stderr. */
  async session({ path: file, named }: SessionSource, migrate: SessionMigration | undefined, io: CliIO): Promise<void> {
    const { args } = this;
    let session: ParsedSession;
    try {
      session = readSessionFile(file, migrate, { maxBytes: args.maxFileBytes, followLinks: named });
    } catch (error) {
      io.err(`pi-governor replay: ${(error as Error).message}; skipped\n`);
      return;
    }
    reportProblems(io, session);
    if (!session.requests.length) {
      io.err(`${file}: no model calls on the active branch; skipped\n`);
      return;
    }
    const recorded = { ...this.sim, ...(session.trailingWarms ? { trailingWarms: session.trailingWarms } : {}) };
    const a = await simulate(session.requests, noPruning, recorded);
    const b = await simulate(session.requests, this.policy, recorded);
    const turns = session.requests[session.requests.length - 1]!.turn;
    this.replayed++;
    this.base = addTotals(this.base, a.totals);
    this.pruned = addTotals(this.pruned, b.totals);
    if (this.pruning && session.requests.length <= MAX_SCHEDULE_REQUESTS) {
      const best = await hindsightRuns(session.requests, this.everyRequest, recorded);
      const timing = this.timing;
      timing.costPrefix += best.prefix.totals.costPrefix;
      timing.costBreakpoint += best.breakpoint.totals.costBreakpoint;
      timing.base = addTotals(timing.base, a.totals);
      timing.pruned = addTotals(timing.pruned, b.totals);
      timing.sessions++;
    }
    if (!this.single) {
      io.out(`${fileLine(basename(file), turns, a.totals, b.totals)}\n`);
      return;
    }
    io.out(
      `${turns} turns, ${session.requests.length} model calls on the active branch (${session.branchEntries} of ${session.entries} entries; the active branch is the path to the session's latest entry, branches left by /tree or /fork are not replayed)\n\n`,
    );
    if (args.turns) io.out(`${turnTable(a, b)}\n\n${TURN_TABLE_LEGEND}\n\n`);
    if (args.chart) io.out(`Prompt tokens per model call (█ sent with pruning, ░ removed by pruning)\n${promptChart(a.requests, b.requests)}\n\n`);
  }

  printTotals(io: CliIO): void {
    const { args, single, replayed, timing } = this;
    if (!single) io.out("\n");
    io.out(`Totals${single ? "" : ` over ${replayed} sessions`}\n${totalsTable(this.base, this.pruned, ["no pruning", "pi-governor"], args.price)}\n`);
    io.out(
      `  costs are input token-equivalents (cached input 0.1x, cache writes 1.25x; a = prefix cache model, b = breakpoint model); $ at ${args.price} per million input tokens; output tokens are the same either way and not counted\n`,
    );
    io.out(`  ${coldLine(this.base, args.cacheLifetime)}\n`);
    if (timing.sessions) io.out(`\n${savingsLine(timing.base, timing.pruned, timing, timing.sessions < replayed)}\n`);
    if (this.pruning && timing.sessions < replayed)
      io.out(`  (${replayed - timing.sessions} session(s) of more than ${MAX_SCHEDULE_REQUESTS} model calls left out of that comparison)\n`);
  }
}
