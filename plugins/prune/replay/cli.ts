/**
 * `pi-governor replay [session.jsonl | dir ...]`: replays recorded pi sessions through the configured
 * context pipeline (the real prune plugin) and shows what it would have sent and cost, against
 * sending the full history. With no argument it replays the bundled sample session.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommandArgs, USAGE_EXIT } from "../../../cli/args.ts";
import type { CliCommand, CliIO } from "../../../cli/main.ts";
import { agentDirFrom, type ConfigLayer, formatProblems, loadConfigLayers, resolveConfig } from "../../../core/index.ts";
import { prune } from "../index.ts";
import { governorPolicy, noPruning } from "./policies.ts";
import { addTotals, fileLine, promptChart, totalsTable, turnTable, ZERO_TOTALS } from "./report.ts";
import { type ParsedSession, readSessionFile } from "./session-file.ts";
import { simulate } from "./simulate.ts";

/** The bundled sample session. */
export const SAMPLE_SESSION = join(dirname(fileURLToPath(import.meta.url)), "sample", "session.jsonl");

const USAGE = `usage: pi-governor replay [session.jsonl | dir ...] [options]

Replays every model call of pi session files with and without the configured pruning and prints
tokens sent, the largest prompt, prompt-cache breaks and cache-weighted cost (cached input 0.1x,
cache writes 1.25x) under two cache models: (a) any unchanged message prefix is cached; (b) only up to
a breakpoint an earlier call wrote (Anthropic, as pi marks them). No argument: the bundled sample.

options:
  --config <file>        take the "prune" section from this JSON file (default: your pi-governor config)
  --system-tokens <n>    tokens of system prompt + tool definitions per call (default 4000)
  --window <n>           model context window in tokens (default 200000)
  --price <usd>          dollars per million fresh input tokens, for the cost column (default 3)
  --no-chart             skip the chart
  --no-turns             skip the per-turn table
`;

interface Args {
  paths: string[];
  config?: string;
  systemTokens: number;
  window: number;
  price: number;
  chart: boolean;
  turns: boolean;
}

/** Parses the command line; an exit code when the command is done (--help, or a usage error). */
function parseReplayArgs(argv: string[], io: CliIO): Args | number {
  const parsed = parseCommandArgs(
    argv,
    { config: { type: "string" }, "system-tokens": { type: "string" }, window: { type: "string" }, price: { type: "string" }, "no-chart": { type: "boolean" }, "no-turns": { type: "boolean" } },
    USAGE,
    io,
  );
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const number = (name: "system-tokens" | "window" | "price", fallback: number): number | string => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const v = Number(raw);
    return raw.trim() !== "" && Number.isFinite(v) && v >= 0 ? v : `--${name} needs a non-negative number, got "${raw}"`;
  };
  const systemTokens = number("system-tokens", 4000);
  const window = number("window", 200_000);
  const price = number("price", 3);
  const bad = [systemTokens, window, price].find((v) => typeof v === "string");
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
    chart: !values["no-chart"],
    turns: !values["no-turns"],
  };
}

/** Session files under `path`: the file itself, or every .jsonl file up to 3 folders deep. */
function sessionFiles(path: string): string[] {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    throw new Error(`no such file or directory: ${path}`);
  }
  if (!stat.isDirectory()) return [path];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory() && depth < 3) walk(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(".jsonl")) out.push(full);
    }
  };
  walk(path, 0);
  if (!out.length) throw new Error(`no .jsonl session files in ${path}`);
  return out;
}

function configLayers(args: Args): { layers: ConfigLayer[]; source: string } {
  if (args.config) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(args.config, "utf8"));
    } catch (error) {
      throw new Error(`cannot use --config ${args.config}: ${(error as Error).message}`);
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error(`--config ${args.config}: expected a JSON object like { "prune": { ... } }`);
    return { layers: [{ kind: "env", source: args.config, data: data as Record<string, unknown> }], source: args.config };
  }
  const { layers } = loadConfigLayers({ cwd: process.cwd(), agentDir: agentDirFrom(process.env), env: process.env });
  const used = layers.filter((l) => l.data.prune !== undefined);
  return { layers: used, source: used.length ? used.map((l) => l.source).join(" <- ") : "prune defaults" };
}

function reportProblems(io: CliIO, session: ParsedSession): void {
  for (const p of session.problems.slice(0, 10)) io.err(`${session.path}: ${p}\n`);
  if (session.problems.length > 10) io.err(`${session.path}: ... and ${session.problems.length - 10} more problem(s)\n`);
}

/** The `replay` command. */
export const run: CliCommand = async (argv, io) => {
  const args = parseReplayArgs(argv, io);
  if (typeof args === "number") return args;
  const paths = args.paths.length ? args.paths : [SAMPLE_SESSION];
  let files: string[];
  let config: ReturnType<typeof configLayers>;
  try {
    files = paths.flatMap(sessionFiles);
    config = configLayers(args);
  } catch (error) {
    io.err(`pi-governor replay: ${(error as Error).message}\n`);
    return 2;
  }
  for (const problem of formatProblems(resolveConfig([prune()], config.layers).problems)) io.err(`pi-governor replay: config ${problem} (using the valid parts)\n`);
  const policy = governorPolicy({ layers: config.layers, contextWindow: args.window });
  const sim = { systemTokens: args.systemTokens, contextWindow: args.window };
  const single = files.length === 1;
  let base = ZERO_TOTALS;
  let pruned = ZERO_TOTALS;
  let replayed = 0;
  io.out(`pi-governor replay${args.paths.length ? "" : " (bundled sample session)"}: ${single ? relative(process.cwd(), files[0]!) || files[0] : `${files.length} session files`}\n`);
  io.out(`  pruning config: ${config.source}; system prompt + tools: ${args.systemTokens.toLocaleString("en-US")} tokens per call; window ${args.window.toLocaleString("en-US")}; tokens = chars/4\n\n`);
  for (const file of files) {
    let session: ParsedSession;
    try {
      session = readSessionFile(file);
    } catch (error) {
      io.err(`pi-governor replay: ${(error as Error).message}; skipped\n`);
      continue;
    }
    reportProblems(io, session);
    if (!session.requests.length) {
      io.err(`${file}: no model calls on the active branch; skipped\n`);
      continue;
    }
    const a = await simulate(session.requests, noPruning, sim);
    const b = await simulate(session.requests, policy, sim);
    const turns = session.requests[session.requests.length - 1]!.turn;
    replayed++;
    base = addTotals(base, a.totals);
    pruned = addTotals(pruned, b.totals);
    if (!single) {
      io.out(`${fileLine(basename(file), turns, a.totals, b.totals)}\n`);
      continue;
    }
    io.out(`${turns} turns, ${session.requests.length} model calls on the active branch (${session.branchEntries} of ${session.entries} entries)\n\n`);
    if (args.turns) io.out(`${turnTable(a, b)}\n  breaks: a = prefix model, b = breakpoint model (calls of the turn that did not reuse the previous prompt)\n\n`);
    if (args.chart) io.out(`Prompt tokens per model call (█ sent with pruning, ░ removed by pruning)\n${promptChart(a.requests, b.requests)}\n\n`);
  }
  if (!replayed) {
    io.err("pi-governor replay: nothing to replay\n");
    return 1;
  }
  if (!single) io.out("\n");
  io.out(`Totals${single ? "" : ` over ${replayed} sessions`}\n${totalsTable(base, pruned, ["no pruning", "pi-governor"], args.price)}\n`);
  io.out(`  cost in fresh-input token equivalents (cached 0.1x, cache writes 1.25x); $ at ${args.price}/M input tokens; output tokens are the same either way and not counted\n`);
  return 0;
};
