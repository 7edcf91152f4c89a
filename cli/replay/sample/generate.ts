/**
 * A deterministic generator of realistic pi sessions (format: pi's session-format.md, version 3):
 * a coding session on a fictional TypeScript API, with `read`, `bash`, `grep` and `kota_*` tool
 * calls, large outputs, blob-truncated kota results, a pinned impact summary, errors, an image, a
 * thinking block now and then, and one abandoned branch (so readers must follow parentId).
 *
 * With `coding`, the calls follow a coding agent's mix instead (coding-calls.ts): writes, edits (some
 * failing), repeated reads, reads after changes, file-changing and read-only bash commands, repeated
 * ls/kota_deps calls. With `mix`, a navigation-heavy or log-heavy mix (other-mixes.ts). With `folds`, a simulated model folds finished turns now and then with
 * `context_fold` calls (model-folds.ts). Both default off, so the default output stays what it was.
 *
 * Used for the bundled replay sample (`write-sample.ts`) and for the bench's 30/100/300-turn sessions.
 */
import { codingCalls, type CodingState, type GenCall, type GenKit, newCodingState } from "./coding-calls.ts";
import { FOLD_TOOL, ModelFolds, type TurnRecord } from "./model-folds.ts";
import { IdleGaps } from "./idle-gaps.ts";
import { type CallMix, otherMixCalls } from "./other-mixes.ts";

/** How to generate. */
export interface GenerateOptions {
  /** Turns (user prompts) on the active branch. */
  turns: number;
  /** PRNG seed; the same seed gives the same session. Default 1. */
  seed?: number;
  /** Multiplies every tool output size. Default 1. */
  outputScale?: number;
  /** Turn (1-based) at which an abandoned branch is inserted; 0 for none. Default 12 when turns >= 14. */
  branchAt?: number;
  /** A coding agent's call mix (writes, edits, failures, repeated and stale reads) instead of the read-mostly one. Default false. */
  coding?: boolean;
  /** A simulated model folds finished turns now and then with `context_fold` calls. Default false. */
  folds?: boolean;
  /** Another call mix instead (other-mixes.ts): "navigation" (kota tools heavy) or "logs" (long bash output). Default none. */
  mix?: CallMix;
  /**
   * People leave: some prompts come after an idle gap (idle-gaps.ts: 5-60 minutes, a few after
   * hours). Only the timestamps change: the messages are those of the same seed without gaps. Default false.
   */
  idleGaps?: boolean;
}

/** One line of a session file. */
export type SessionLine = Record<string, unknown>;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = [
  "src/auth/context.ts",
  "src/auth/session.ts",
  "src/http/router.ts",
  "src/http/middleware.ts",
  "src/db/pool.ts",
  "src/db/migrations.ts",
  "src/users/service.ts",
  "src/users/repository.ts",
  "src/billing/invoice.ts",
  "src/billing/stripe.ts",
  "src/config/env.ts",
  "src/jobs/queue.ts",
  "test/auth/context.test.ts",
  "test/users/service.test.ts",
];
const SYMBOLS = [
  "AuthContext",
  "resolveSession",
  "createRouter",
  "withAuth",
  "getPool",
  "runMigrations",
  "UserService",
  "findUserById",
  "InvoiceBuilder",
  "chargeCustomer",
  "loadEnv",
  "enqueueJob",
];
const WORDS = [
  "token",
  "session",
  "user",
  "request",
  "config",
  "invoice",
  "retry",
  "cache",
  "handler",
  "context",
  "payload",
  "result",
  "error",
  "pool",
  "query",
  "limit",
];
const PROMPTS = [
  "Where is the auth context built, and who consumes it?",
  "Add a request id to every log line in the HTTP layer.",
  "Why does the users service test flake on CI? Look at the test and the pool setup.",
  "What breaks if I change resolveSession to return a Result instead of throwing?",
  "Refactor the invoice builder to take a clock so tests can fix the date.",
  "Find every place that reads process.env directly and route it through loadEnv.",
  "The job queue drops jobs on shutdown. Find out why and propose a fix.",
  "Write a migration that adds an index on users(email) and update the repository.",
  "Summarise the middleware order and check that auth runs before rate limiting.",
  "Rename chargeCustomer to createCharge everywhere, including tests.",
  "Check that the Stripe webhook handler verifies signatures.",
  "Run the test suite and fix whatever fails.",
];

/** Generates a session as JSONL lines (header first). */
export function generateSession(options: GenerateOptions): SessionLine[] {
  const rand = mulberry32(options.seed ?? 1);
  const scale = options.outputScale ?? 1;
  const branchAt = options.branchAt ?? (options.turns >= 14 ? 12 : 0);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const between = (lo: number, hi: number) => Math.floor(lo + rand() * (hi - lo));
  const log = new SessionLog(between);
  const kit = textKit(rand, pick, between, scale);
  const blobs = { next: 1 };
  const calls = [...fileCalls(kit), ...searchCalls(kit, blobs)];
  const codingState: CodingState = newCodingState();
  const impact = impactCall(kit);
  const mix: TurnMix = {
    kit,
    calls,
    impact,
    image: imageCall(kit),
    blobRead: blobReadCall(kit, blobs),
    blobs,
    codingCall: options.mix
      ? otherMixCalls(kit, options.mix, { read: calls[0]!, grep: calls[6]!, search: calls[3]!, deps: calls[4]!, usages: calls[5]!, impact })
      : options.coding
        ? codingCalls(kit, codingState, () => pick(calls)())
        : undefined,
    folds: options.folds ? new ModelFolds(kit) : undefined,
    gaps: options.idleGaps ? new IdleGaps(options.seed ?? 1) : undefined,
    finished: [],
  };

  log.add({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  log.add({ type: "thinking_level_change", thinkingLevel: "medium" });
  for (let t = 1; t <= options.turns; t++) {
    if (t === branchAt) {
      const fork: string | null = log.leaf;
      const saved = structuredClone(codingState);
      writeTurn(log, mix, t); // explored, then abandoned with /tree
      log.leaf = fork;
      mix.finished.pop();
      Object.assign(codingState, saved);
      log.add({
        type: "branch_summary",
        fromId: fork,
        summary: "Explored moving session lookup into the router; abandoned: it couples routing to the session store.",
      });
    }
    writeTurn(log, mix, t);
  }
  return log.lines;
}

/** The session file being written: its lines, the clock, entry and call ids, the leaf, the context size so far. */
class SessionLog {
  clock = Date.UTC(2026, 10, 20, 9, 0, 0);
  private nextId = 1;
  private callNo = 1;
  leaf: string | null = null;
  /** Characters of prompts and results so far (the assistant's usage figures follow it). */
  context = 0;
  readonly lines: SessionLine[];

  constructor(private readonly between: (lo: number, hi: number) => number) {
    this.lines = [
      { type: "session", version: 3, id: "5f0c2d1e-8a7b-4c3d-9e2f-1a2b3c4d5e6f", timestamp: new Date(this.clock).toISOString(), cwd: "/home/dev/acme-api" },
    ];
  }

  add(entry: Record<string, unknown>): string {
    const id = (this.nextId++).toString(16).padStart(8, "0");
    this.clock += this.between(800, 9000);
    this.lines.push({ ...entry, id, parentId: this.leaf, timestamp: new Date(this.clock).toISOString() });
    this.leaf = id;
    return id;
  }

  message(m: Record<string, unknown>): string {
    return this.add({ type: "message", message: { ...m, timestamp: this.clock + 1 } });
  }

  callId(): string {
    return `toolu_${(this.callNo++).toString(36).padStart(6, "0")}`;
  }

  assistant(content: unknown[], stop: string): void {
    const input = Math.round(this.context / 4) + 3500;
    this.message({
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: {
        input: 40,
        output: this.between(80, 900),
        cacheRead: input - 40,
        cacheWrite: 0,
        totalTokens: input + 400,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: stop,
    });
  }
}

/** The generator's kit plus numbered file text (what `read` returns). */
interface SampleKit extends GenKit {
  /** About `chars` (times the scale) characters of numbered code lines from line `from`. */
  numbered: (chars: number, from?: number) => string;
}

function textKit(rand: () => number, pick: GenKit["pick"], between: GenKit["between"], scale: number): SampleKit {
  const codeLine = () => {
    const w = pick(WORDS);
    switch (between(0, 6)) {
      case 0:
        return `export function ${pick(SYMBOLS)}(${w}: ${pick(["string", "Request", "Config", "number"])}) {`;
      case 1:
        return `  const ${w} = await ${pick(SYMBOLS)}(${pick(WORDS)}, { ${pick(WORDS)}: ${between(1, 500)} });`;
      case 2:
        return `  if (!${w}) throw new Error("${w} missing for ${pick(WORDS)}");`;
      case 3:
        return `  // ${pick(WORDS)} must be ${pick(["validated", "cached", "released", "retried"])} before the ${pick(WORDS)} is used`;
      case 4:
        return `  return { ${w}, ${pick(WORDS)}: ${pick(WORDS)}.${pick(WORDS)} };`;
      default:
        return "}";
    }
  };
  const text = (chars: number, line: () => string) => {
    const out: string[] = [];
    let n = 0;
    while (n < chars) {
      const l = line();
      out.push(l);
      n += l.length + 1;
    }
    return out.join("\n");
  };
  const numbered = (chars: number, from = 1) =>
    text(chars * scale, codeLine)
      .split("\n")
      .map((l, i) => `${String(from + i).padStart(4)}  ${l}`)
      .join("\n");
  const prose = (chars: number) =>
    text(
      chars,
      () =>
        `${pick(["I", "The", "This", "Next,"])} ${pick(WORDS)} ${pick(["path", "flow", "call", "check"])} ${pick(["looks fine", "needs a guard", "is shared by two callers", "leaks on error", "runs before auth"])}.`,
    ).replace(/\n/g, " ");
  return { rand, pick, between, text, codeLine, prose, numbered, files: FILES, symbols: SYMBOLS, words: WORDS, scale };
}

const tx = (t: string) => [{ type: "text", text: t }];

/** Over 4,000 characters: the blobs plugin's cut (a 2,000-character excerpt and a blob pointer). */
function blobbed(full: string, blobs: { next: number }): { content: string; details: Record<string, unknown> } {
  if (full.length <= 4000) return { content: full, details: {} };
  const blobId = `b${(blobs.next++).toString(16).padStart(6, "0")}${"a1c3e5".slice(0, 2)}`;
  const excerpt = full.slice(0, 2000);
  return {
    content: `${excerpt}\n… [truncated: ${full.length} bytes, full output in blob ${blobId}; read it with blob_read]`,
    details: { truncated: true, blobId, blobPath: `~/.pi/cache/pi-governor/blobs/${blobId}.txt`, originalBytes: full.length, excerptBytes: 2000 },
  };
}

/** The read-mostly mix's file calls: two kinds of `read` and a `bash` command. */
function fileCalls(kit: SampleKit): Array<() => GenCall> {
  const { rand, pick, between, text, codeLine, numbered, scale } = kit;
  return [
    () => {
      const path = pick(FILES);
      const offset = rand() < 0.3 ? between(1, 200) : undefined;
      return {
        name: "read",
        args: { path, ...(offset ? { offset, limit: 200 } : {}) },
        result: () =>
          rand() < 0.05
            ? { content: tx(`ENOENT: no such file or directory, open '${path.replace(".ts", ".tsx")}'`), isError: true }
            : { content: tx(numbered(between(2500, 14000), offset ?? 1)) },
      };
    },
    () => {
      const path = pick(FILES);
      return { name: "read", args: { path }, result: () => ({ content: tx(numbered(between(3000, 9000))) }) };
    },
    () => {
      const cmd = pick([`rg -n "${pick(SYMBOLS)}" src test`, "npm test -- --reporter=dot", "git log --oneline -30", `git diff ${pick(FILES)}`, "ls -la src/*"]);
      return {
        name: "bash",
        args: { command: cmd },
        result: () =>
          cmd.startsWith("npm") && rand() < 0.4
            ? {
                content: tx(
                  `${text(between(800, 2500) * scale, () => `FAIL test/${pick(WORDS)}.test.ts > ${pick(WORDS)} ${pick(WORDS)}: expected ${between(1, 9)} to be ${between(1, 9)}`)}\n\nCommand exited with code 1`,
                ),
                isError: true,
              }
            : { content: tx(text(between(600, 7000) * scale, () => `${pick(FILES)}:${between(1, 400)}:  ${codeLine().trim()}`)) },
      };
    },
  ];
}

/** The read-mostly mix's searches: kota_search, kota_deps, kota_usages and grep. */
function searchCalls(kit: SampleKit, blobs: { next: number }): Array<() => GenCall> {
  const { pick, between, text, codeLine, scale } = kit;
  return [
    () => {
      const output = pick(["snippet", "snippet", "compact", "paths"]);
      const q = `${pick(WORDS)} ${pick(WORDS)}`;
      return {
        name: "kota_search",
        args: { query: q, scope: ["code"], output, limit: pick([10, 15, 20]) },
        result: () => {
          const b = blobbed(
            output === "paths"
              ? FILES.slice(0, between(3, 12)).join("\n")
              : text(
                  (output === "snippet" ? between(3000, 9000) : between(700, 2200)) * scale,
                  () => `${pick(FILES)}:${between(1, 300)}  ${codeLine().trim()}`,
                ),
            blobs,
          );
          return { content: tx(b.content), details: b.details };
        },
      };
    },
    () => ({
      name: "kota_deps",
      args: { file_path: pick(FILES), direction: pick(["both", "dependents", "dependencies"]), depth: between(1, 3) },
      result: () => {
        const b = blobbed(
          text(between(500, 5000) * scale, () => `  ${pick(["->", "<-"])} ${pick(FILES)} (${pick(SYMBOLS)})`),
          blobs,
        );
        return { content: tx(b.content), details: b.details };
      },
    }),
    () => ({
      name: "kota_usages",
      args: { symbol: pick(SYMBOLS) },
      result: () => ({ content: tx(text(between(400, 3000) * scale, () => `${pick(FILES)}:${between(1, 300)}  ${codeLine().trim()}`)) }),
    }),
    () => ({
      name: "grep",
      args: { pattern: pick(SYMBOLS), path: "src" },
      result: () => ({ content: tx(text(between(300, 2500) * scale, () => `${pick(FILES)}:${between(1, 300)}: ${codeLine().trim()}`)) }),
    }),
  ];
}

/** A pinned kota_impact summary. */
function impactCall(kit: SampleKit): () => GenCall {
  const { pick, between, text } = kit;
  return () => ({
    name: "kota_impact",
    args: { change_type: "refactor", description: `change ${pick(SYMBOLS)} signature`, files_to_modify: [pick(FILES), pick(FILES)] },
    result: () => ({
      content: tx(
        `[pinned: kept in context when older tool output is pruned]\nRisk: ${pick(["medium", "high"])}\nAffected: ${between(4, 19)} files, ${between(2, 9)} public symbols\n${text(between(700, 1500), () => `- ${pick(FILES)}: ${pick(["call site", "type import", "test fixture"])} of ${pick(SYMBOLS)}`)}\nRecommended tests: ${FILES.filter((f) => f.startsWith("test")).join(", ")}`,
      ),
      details: { pinned: true },
    }),
  });
}

/** A `read` of an image. */
function imageCall(kit: SampleKit): () => GenCall {
  const { pick, text } = kit;
  return () => ({
    name: "read",
    args: { path: "docs/architecture.png" },
    result: () => ({
      content: [
        { type: "text", text: "Read image file [image/png]" },
        { type: "image", mimeType: "image/png", data: Buffer.from(text(1200, () => pick(WORDS))).toString("base64") },
      ],
    }),
  });
}

/** A blob_read of the last blob stored. */
function blobReadCall(kit: SampleKit, blobs: { next: number }): () => GenCall {
  const { between, text, codeLine } = kit;
  return () => ({
    name: "blob_read",
    args: {
      blobId: `b${Math.max(1, blobs.next - 1)
        .toString(16)
        .padStart(6, "0")}a1`,
      offset: 2000,
      limit: 3000,
    },
    result: () => ({ content: tx(text(between(1000, 3000), codeLine)) }),
  });
}

/** What a turn draws its calls from, and what the turns so far did (for the folds). */
interface TurnMix {
  kit: SampleKit;
  calls: Array<() => GenCall>;
  impact: () => GenCall;
  image: () => GenCall;
  blobRead: () => GenCall;
  blobs: { next: number };
  /** The coding or another mix's next call; undefined for the read-mostly mix. */
  codingCall: (() => GenCall) | undefined;
  folds: ModelFolds | undefined;
  gaps: IdleGaps | undefined;
  finished: TurnRecord[];
}

/** One turn: the prompt, a fold now and then, 1-4 rounds of calls and results, the answer. */
function writeTurn(log: SessionLog, mix: TurnMix, t: number): void {
  const { rand, pick, between, prose } = mix.kit;
  const prompt = `${PROMPTS[(t - 1) % PROMPTS.length]}${t > PROMPTS.length ? ` (follow-up ${Math.ceil(t / PROMPTS.length)})` : ""}`;
  if (mix.gaps && t > 1) log.clock += mix.gaps.beforePrompt();
  log.message({ role: "user", content: [{ type: "text", text: prompt }] });
  log.context += prompt.length;
  const record: TurnRecord = { turn: t, calls: 0, pinned: false, folds: false };
  const fold = mix.folds?.plan(t, mix.finished);
  if (fold) {
    const id = log.callId();
    log.assistant(
      [
        { type: "text", text: `Turns ${fold.fromTurn}-${fold.toTurn} are finished; folding them into a summary first.` },
        { type: "toolCall", id, name: FOLD_TOOL, arguments: fold.args },
      ],
      "toolUse",
    );
    log.message({ role: "toolResult", toolCallId: id, toolName: FOLD_TOOL, content: [{ type: "text", text: fold.result }], details: {}, isError: false });
    Object.assign(record, { first: id, last: id, calls: 1, folds: true });
  }
  const rounds = between(1, 5);
  for (let r = 0; r < rounds; r++) {
    const blocks: unknown[] = [];
    if (rand() < 0.25) blocks.push({ type: "thinking", thinking: prose(between(150, 600)), thinkingSignature: `sig_${t}_${r}` });
    blocks.push({ type: "text", text: prose(between(60, 260)) });
    const n = rand() < 0.3 ? 2 : 1;
    const made: GenCall[] = [];
    for (let k = 0; k < n; k++) {
      const special = rand();
      made.push(
        special < 0.04
          ? mix.impact()
          : special < 0.06
            ? mix.image()
            : special < 0.09 && mix.blobs.next > 1
              ? mix.blobRead()
              : mix.codingCall
                ? mix.codingCall()
                : pick(mix.calls)(),
      );
    }
    const ids = made.map(() => log.callId());
    record.first ??= ids[0];
    record.last = ids[ids.length - 1];
    record.calls += made.length;
    if (made.some((c) => c.name === "kota_impact")) record.pinned = true;
    made.forEach((c, k) => blocks.push({ type: "toolCall", id: ids[k], name: c.name, arguments: c.args }));
    log.assistant(blocks, "toolUse");
    made.forEach((c, k) => {
      const res = c.result();
      log.message({
        role: "toolResult",
        toolCallId: ids[k],
        toolName: c.name,
        content: res.content,
        details: res.details ?? {},
        isError: res.isError ?? false,
      });
      log.context += JSON.stringify(res.content).length;
    });
  }
  log.assistant([{ type: "text", text: prose(between(200, 900)) }], "stop");
  mix.finished.push(record);
}

/** A generated session as file text. */
export function sessionJsonl(options: GenerateOptions): string {
  return (
    generateSession(options)
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n"
  );
}
