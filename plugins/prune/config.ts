/**
 * The `prune` config section: schema and defaults in one place. Every option is documented with its
 * unit and default; `/governor pruning` prints the effective values.
 */
import { z } from "zod";
import type { RenamedKeys } from "../../core/index.ts";
import { boundedRecord, toolListSchema, toolNameSchema } from "../../lib/config/index.ts";
import { MAX_PATTERN_TOTAL_CHARS } from "../../lib/context/index.ts";

const toolList = toolListSchema();

/** How the placeholder of one tool's pruned result reads. */
export const placeholderHintSchema = z
  .object({
    argOrder: z
      .array(z.string().min(1).max(64))
      .max(10)
      .optional()
      .describe("Arguments shown first in the placeholder's call, in this order; the others follow in call order."),
    rehydrate: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .describe("How to get the result back when no blob holds it, one sentence for the model. Default: re-run the tool with narrower arguments."),
  })
  .strict();

/** How the placeholder of one tool's pruned result reads. */
export type PlaceholderHint = z.infer<typeof placeholderHintSchema>;

/** The `prune` keys other than `perModel`. */
const pruneBaseSchema = z.object({
  keepRecentTurns: z
    .number()
    .int()
    .min(1)
    .max(100)
    .describe("Turns at the end of the context kept byte-identical. A turn is a user message and everything up to the next one. Default 2."),
  maxToolChars: z.number().int().min(0).max(10_000_000).describe("In older turns, any tool result longer than this (characters) is pruned. Default 1200."),
  adaptive: z.boolean().describe("Above adaptiveEnterPercent of the context window, keep fewer turns and cut tighter. Default true."),
  pinImpactSummaries: z.boolean().describe("Pin the results of the impactTools when they arrive (never pruned). Default true."),
  impactTools: toolList.describe("Tools that summarise the impact of a planned change: pinned on arrival while pinImpactSummaries is on. Default []."),
  pruneTools: toolList.describe("Tools whose results are pruned in older turns whatever their size."),
  snippetTools: toolList.describe('Search tools whose results are pruned when called with output "snippet". Default [].'),
  neverPruneTools: toolList.describe("Tools whose results are never pruned (status tools, small summaries). Default []."),
  pinTools: toolList.describe("Tools whose results are pinned when they arrive. Default []."),
  pinSkipTools: toolList.describe('Tools the pin command skips when looking for the last meaning-bearing result. Default ["blob_read", "context_fold"].'),
  adaptiveKeepRecentTurns: z.number().int().min(1).max(100).describe("keepRecentTurns while adaptive mode is on. Default 1."),
  adaptiveMaxToolChars: z.number().int().min(0).max(10_000_000).describe("maxToolChars while adaptive mode is on (characters). Default 800."),
  adaptivePruneTools: toolList.describe(
    'Tools added to pruneTools while adaptive mode is on; "*" means every tool (pinned and neverPruneTools results still stay). Default ["*"].',
  ),
  adaptiveEnterPercent: z
    .number()
    .min(1)
    .max(1000)
    .describe("Adaptive mode turns on when the context before pruning (the full history) reaches this percent of the window. Default 25."),
  adaptiveExitPercent: z
    .number()
    .min(0)
    .max(1000)
    .describe("Adaptive mode turns off when the context before pruning falls below this percent (must be lower: the gap stops flip-flopping). Default 15."),
  contextWindow: z.number().int().min(1000).max(100_000_000).describe("Context window in tokens, used when pi does not report one. Default 200000."),
  minStepTokens: z
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .describe(
      "The pruning boundary moves only when the step frees at least this many estimated tokens (chars/4). 0: any step that pays for its cache rewrite. Default 0.",
    ),
  cacheAware: z
    .boolean()
    .describe(
      "Move the boundary only when the step pays for the prompt cache rewrite it causes (stepRule). false: move as soon as minStepTokens would be freed. Default true.",
    ),
  stepRule: z
    .enum(["expected-cost", "carry"])
    .describe(
      'When the boundary moves below forceStepPercent. "expected-cost": when the step repays its cache rewrite within the calls the session is expected to make (as many as it has made so far) and waiting would not make it cheaper, else once carrying the output has cost one rewrite (both cache models weighed the same). "carry": only once carrying the output has cost one rewrite (the rule of earlier releases). Default "expected-cost".',
    ),
  forceStepPercent: z
    .number()
    .min(1)
    .max(1000)
    .describe(
      "When the prompt that would be sent reaches this percent of the window, move the boundary regardless of cache cost once the step frees forceStepFreePercent (room for the next turns). Default 80.",
    ),
  minStepPercent: z
    .number()
    .min(0)
    .max(50)
    .describe(
      "The boundary moves only when the step frees at least this percent of the prompt that would be sent (or minStepTokens, when larger). 0: no such floor. Default 0.",
    ),
  forceStepFreePercent: z
    .number()
    .min(0)
    .max(90)
    .describe(
      "Above forceStepPercent, a step is forced only when it frees at least this percent of the prompt at the force line, falling linearly to any step at all at 90% of the window. 0: force any step above the line. Default 0.",
    ),
  cacheLifetime: z
    .union([z.enum(["model", "off"]), z.number().int().min(1).max(86_400)])
    .describe(
      'How long the provider keeps a prompt cache entry after its last use, in seconds: a request after a longer gap (by the messages\' timestamps and the host\'s cache warming) finds the cache cold, so every pending boundary step is taken then (it costs no extra cache write), and the host\'s cache warming is stopped where the next request changes the prompt anyway. "model": the lifetime the model declares for the retention in use (pi 1.x `promptCache`), else 300. "off": never assume a cold cache (the rule of earlier releases). Default "model".',
    ),
  perTool: boundedRecord(toolNameSchema(), placeholderHintSchema).describe(
    "Per-tool placeholder text by tool name: argOrder (arguments shown first) and rehydrate (how to get the result back). Default: pi's read, bash, grep, find and ls, and blob_read.",
  ),
  dedup: z
    .boolean()
    .describe(
      "Past the boundary, the older results of a call repeated later with the same tool and arguments become a placeholder that names the newer call. Default true.",
    ),
  staleReads: z
    .boolean()
    .describe(
      "Past the boundary, a readTools result of a file that a later writeTools call (or a bash command naming the file) changed becomes a placeholder saying the file changed and how to read it now. Default true.",
    ),
  readTools: toolList.describe('Tools whose result is the text of the file named by their path argument. Default ["read"].'),
  writeTools: toolList.describe('Tools that change the file named by their path argument. Default ["edit", "write"].'),
  protectedFilePatterns: z
    .array(z.string().min(1).max(200))
    .max(64)
    .refine((patterns) => patterns.reduce((n, p) => n + p.length, 0) <= MAX_PATTERN_TOTAL_CHARS, {
      message: `at most ${MAX_PATTERN_TOTAL_CHARS} characters in all patterns together`,
    })
    .describe(
      `Globs of file paths (\`**\` any folders, \`*\` any characters but "/", \`?\` one character; a pattern without "/" matches the file name) whose calls are never pruned, deduplicated, cut or folded. At most 64 patterns of 200 characters, ${MAX_PATTERN_TOTAL_CHARS} characters in all. Default [].`,
    ),
  maxArgChars: z
    .number()
    .int()
    .min(0)
    .max(10_000_000)
    .describe(
      "Past the boundary, a completed call whose arguments are longer than this (characters of their JSON) keeps an excerpt of each long string argument and a way back. 0: never. Default 800.",
    ),
  argExcerptChars: z.number().int().min(20).max(100_000).describe("Characters kept of each cut string argument (start and end). Default 160."),
  failedArgsAfterTurns: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .describe(
      "Past the boundary, the arguments of a call that failed are cut to an excerpt once the call is this many turns old; the error text stays. 0: never. Default 4.",
    ),
});

/** The keys a `perModel` entry may override, with the same bounds as the top-level keys. */
export const PER_MODEL_KEYS = [
  "keepRecentTurns",
  "maxToolChars",
  "adaptive",
  "adaptiveEnterPercent",
  "adaptiveExitPercent",
  "adaptiveKeepRecentTurns",
  "adaptiveMaxToolChars",
  "contextWindow",
  "minStepTokens",
  "cacheAware",
  "stepRule",
  "forceStepPercent",
  "forceStepFreePercent",
  "minStepPercent",
  "cacheLifetime",
  "dedup",
  "staleReads",
  "maxArgChars",
  "failedArgsAfterTurns",
] as const;

/**
 * A `perModel` key: `provider/model-id` (one model; the id may itself contain "/"), `provider/*`
 * (every model of a provider) or `*` (every model).
 */
export const MODEL_KEY_PATTERN = /^(?:\*|[^/*\s]+\/(?:\*|[^*\s]+))$/;

/** One `perModel` entry: `enabled` plus overrides of the top-level keys. */
export const perModelEntrySchema = pruneBaseSchema
  .pick(Object.fromEntries(PER_MODEL_KEYS.map((k) => [k, true])) as { [K in (typeof PER_MODEL_KEYS)[number]]: true })
  .partial()
  .extend({
    enabled: z.boolean().optional().describe("false: no pruning for the models this key matches (a more specific key may set true again). Default true."),
  })
  .strict();

/** One `perModel` entry. */
export type PerModelEntry = z.infer<typeof perModelEntrySchema>;

/** The schema of the `prune` section (without `enabled`, which definePlugin adds). */
export const pruneSchema = pruneBaseSchema.extend({
  contextEdits: z
    .enum(["auto", "off"])
    .describe(
      'How pruning reaches the session on pi lines with context edits (0.87 and later): "auto" also writes each pruned result as a pi context_edit entry at the end of the turn, so the session file and a resume keep the placeholders; "off" only rewrites each request (the only way on older pi lines). The model gets the same messages either way. Default "auto".',
    ),
  perModel: boundedRecord(
    z.string().max(200).regex(MODEL_KEY_PATTERN, 'a model key: "provider/model-id", "provider/*" or "*"'),
    perModelEntrySchema,
    64,
  ).describe(
    'Settings per model, by "provider/model-id", "provider/*" or "*": enabled (false: no pruning for that model) and overrides of keepRecentTurns, maxToolChars, the adaptive and step thresholds, contextWindow and the strategy switches. Each setting comes from the most specific key that sets it (exact, then provider/*, then *), else from the top level. Default {}.',
  ),
});

/** The `prune` options (without `enabled`). */
export type PruneOptions = z.infer<typeof pruneSchema>;

/** Defaults for the `prune` section. */
export const pruneDefaults: PruneOptions = {
  keepRecentTurns: 2,
  maxToolChars: 1200,
  adaptive: true,
  pinImpactSummaries: true,
  impactTools: [],
  pruneTools: ["read", "bash"],
  snippetTools: [],
  neverPruneTools: [],
  pinTools: [],
  pinSkipTools: ["blob_read", "context_fold"],
  adaptiveKeepRecentTurns: 1,
  adaptiveMaxToolChars: 800,
  adaptivePruneTools: ["*"],
  adaptiveEnterPercent: 25,
  adaptiveExitPercent: 15,
  contextWindow: 200_000,
  minStepTokens: 0,
  cacheAware: true,
  stepRule: "expected-cost",
  forceStepPercent: 80,
  minStepPercent: 0,
  forceStepFreePercent: 0,
  cacheLifetime: "model",
  perTool: {
    read: { argOrder: ["path", "offset", "limit"], rehydrate: "Re-read it (offset/limit for part)." },
    bash: { argOrder: ["command"], rehydrate: "Re-run it narrowed (grep/head/tail)." },
    grep: { argOrder: ["pattern", "path", "glob"], rehydrate: "Re-run it with a narrower pattern/glob." },
    find: { argOrder: ["pattern", "path"] },
    ls: { argOrder: ["path"] },
    blob_read: { argOrder: ["blobId", "offset", "limit", "grep"] },
  },
  dedup: true,
  staleReads: true,
  readTools: ["read"],
  writeTools: ["edit", "write"],
  protectedFilePatterns: [],
  maxArgChars: 800,
  argExcerptChars: 160,
  failedArgsAfterTurns: 4,
  contextEdits: "auto",
  perModel: {},
};

/**
 * The settings of today's plugin before the meaning-based strategies: no dedup, no stale reads, no
 * argument cuts (and no folding: the fold plugin off). The replay and the bench compare against it.
 */
export const RESULT_ONLY_PRUNING: Partial<PruneOptions> = Object.freeze({
  cacheLifetime: "off",
  dedup: false,
  staleReads: false,
  maxArgChars: 0,
  failedArgsAfterTurns: 0,
  stepRule: "carry",
  minStepTokens: 2000,
  forceStepPercent: 25,
  forceStepFreePercent: 0,
  minStepPercent: 0,
} as const);

/** The step settings of the previous release's defaults (the replay and the bench compare against them). */
export const PREVIOUS_STEP_DEFAULTS: Partial<PruneOptions> = Object.freeze({
  stepRule: "carry",
  minStepTokens: 2000,
  forceStepPercent: 25,
  forceStepFreePercent: 75,
  minStepPercent: 25,
  cacheLifetime: "off",
} as const);

/**
 * The defaults before the step rule knew the clock: no cold caches, no answer to cache warming (the
 * bench and the replay compare the defaults against them on sessions with idle gaps).
 */
export const CLOCKLESS_STEP_DEFAULTS: Partial<PruneOptions> = Object.freeze({ cacheLifetime: "off" } as const);

/**
 * Keys that left the section: folding is the fold plugin now (`fold.enabled`, `fold.nudgePercent`).
 * A file that still sets `prune.fold` or `prune.foldNudgePercent` keeps working, with a note. Folding
 * was a part of pruning, so a file that turns pruning off turns folding off too, unless it sets
 * `fold.enabled` itself.
 */
export const pruneRenamedKeys: RenamedKeys = Object.freeze({
  fold: { to: "enabled", section: "fold" },
  foldNudgePercent: { to: "nudgePercent", section: "fold" },
  enabled: { to: "enabled", section: "fold", alsoWhen: (value: unknown) => value === false },
});

/**
 * The adaptive mode's gap rule, stated once: exit must be below enter (the gap stops adaptive mode
 * flip-flopping). Returns what is wrong and how to fix it, or undefined. Checked by
 * {@link pruneCrossCheck} for the top level and by the plugin for each `perModel` entry.
 */
export function adaptiveGapProblem(enter: number, exit: number): string | undefined {
  if (exit < enter) return undefined;
  return `adaptiveExitPercent ${exit} must be below adaptiveEnterPercent ${enter} (the gap stops adaptive mode flip-flopping); lower adaptiveExitPercent or raise adaptiveEnterPercent`;
}

/**
 * The adaptive thresholds in force (percent of the window): enter as set, exit at most 90% of enter,
 * so a gap remains whatever a `perModel` entry combined. The one place the pruner reads them from.
 */
export function adaptiveThresholds(options: Pick<PruneOptions, "adaptiveEnterPercent" | "adaptiveExitPercent">): { enter: number; exit: number } {
  const enter = options.adaptiveEnterPercent;
  return { enter, exit: Math.min(options.adaptiveExitPercent, enter * 0.9) };
}

/** Rules across prune keys: adaptive mode needs a gap between its exit and enter thresholds. */
export function pruneCrossCheck(options: PruneOptions): Array<{ keys: string[]; message: string }> {
  const problem = adaptiveGapProblem(options.adaptiveEnterPercent, options.adaptiveExitPercent);
  return problem ? [{ keys: ["adaptiveExitPercent", "adaptiveEnterPercent"], message: problem }] : [];
}

/** Cache pricing relative to fresh input, as providers bill it (Anthropic: read 0.1x, write 1.25x). */
export const CACHE_PRICING = Object.freeze({
  /** Cached input read, per token, relative to fresh input. */
  read: 0.1,
  /** Cache write, per token, relative to fresh input. */
  write: 1.25,
  /**
   * Content blocks behind a request's last cache breakpoint within which the provider finds an
   * earlier cache entry (Anthropic: about 20). A change further back rewrites the whole prompt.
   */
  lookbackBlocks: 20,
});

/** The rule set in force: normal, or tight (adaptive). */
export type PruneMode = "normal" | "tight";

/** The thresholds one mode prunes with. */
export interface ModeRules {
  mode: PruneMode;
  keepRecentTurns: number;
  maxToolChars: number;
  pruneTools: ReadonlySet<string>;
  snippetTools: ReadonlySet<string>;
  neverPruneTools: ReadonlySet<string>;
  /** Placeholder style: short in tight mode, where every character repeats on every call. */
  placeholderStyle: "full" | "short";
  /** Placeholder text per tool name (`perTool`). */
  placeholderHints: Readonly<Record<string, PlaceholderHint>>;
}

/** The rules of `mode` under `options`. */
export function rulesFor(options: PruneOptions, mode: PruneMode): ModeRules {
  const tight = mode === "tight";
  return {
    mode,
    keepRecentTurns: tight ? Math.min(options.adaptiveKeepRecentTurns, options.keepRecentTurns) : options.keepRecentTurns,
    maxToolChars: tight ? Math.min(options.adaptiveMaxToolChars, options.maxToolChars) : options.maxToolChars,
    pruneTools: new Set(tight ? [...options.pruneTools, ...options.adaptivePruneTools] : options.pruneTools),
    snippetTools: new Set(options.snippetTools),
    neverPruneTools: new Set(options.neverPruneTools),
    placeholderStyle: tight ? "short" : "full",
    placeholderHints: options.perTool,
  };
}
