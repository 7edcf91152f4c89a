/**
 * Redaction cost: it runs on every tool result and every byte written to the blob cache and the
 * recall index. Rows:
 * - typical results (16 KB and 1 MB of this repository's source) against a plain copy of the text
 *   (a UTF-8 round trip, what storing it costs anyway), in CPU time; target: redaction <= 25x the copy.
 * - every rule alone on the adversarial corpus (redact-corpus.ts: floods of each rule's own anchors,
 *   values just too long, key blocks without END, escapes and nesting to any depth): its worst CPU
 *   milliseconds per MB and the input that costs it; target <= 50 ms per MB, an absolute bound.
 * - all rules together on the same corpus: the worst CPU ms per MB (target <= 50 too), and 1 MB
 *   against 256 KB of the costliest inputs: linear = 4, target <= 6.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_RULE_NAMES, Redactor } from "../../lib/redact/index.ts";
import { cpuNsPerCall, formatNs, type BenchSuite } from "./harness.ts";
import { adversarialCorpus } from "./redact-corpus.ts";

const ROOT = join(import.meta.dirname, "..", "..");

/** This repository's source, concatenated up to `bytes` characters. */
function sourceText(bytes: number): string {
  let out = "";
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (out.length >= bytes) return;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts")) out += readFileSync(path, "utf8");
    }
  };
  while (out.length < bytes) for (const d of ["core", "lib", "plugins", "test"]) walk(join(ROOT, d));
  return out.slice(0, bytes);
}

const copy = (text: string) => Buffer.from(text, "utf8").toString("utf8");

/** Env values given to servers, as the mcp and kota plugins add them. */
const LITERALS = ["an-env-secret-1", "another-env-value-22", "hunter2-horse-battery-staple", "Zx9".repeat(16)];
/** Target: at most this many milliseconds per MB of adversarial input, per rule. */
const TARGET_MS_PER_MB = 50;
/** Corpus item size for the per-rule table (ms per MB does not depend on it for a linear rule). */
const ITEM_CHARS = 256 * 1024;

/**
 * CPU milliseconds per MB of `fn` on `text`: the best of `runs` after one warm-up. CPU time of this
 * process, not wall time: other work on a shared machine does not count, GC pauses are shrugged off.
 */
function msPerMB(fn: (text: string) => unknown, text: string, runs = 3): number {
  fn(text);
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    fn(text);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best / (Buffer.byteLength(text, "utf8") / 1e6);
}

/** A redactor with only `rule` on (env-value: only the literals). */
function onlyRule(rule: string): Redactor {
  const others = BUILTIN_RULE_NAMES.filter((n) => n !== rule);
  return rule === "env-value" ? new Redactor({ disabledRules: BUILTIN_RULE_NAMES, literals: LITERALS }) : new Redactor({ disabledRules: others });
}

const suite: BenchSuite = async (report) => {
  const redactor = new Redactor({ literals: LITERALS });
  for (const [label, size, iterations] of [
    ["16 KB source", 16 * 1024, 400],
    ["1 MB source", 1024 * 1024, 8],
  ] as const) {
    const text = sourceText(size);
    const base = cpuNsPerCall(() => copy(text), iterations, { warmup: 3 });
    const cost = cpuNsPerCall(() => redactor.redact(text), iterations, { warmup: 3 });
    const ratio = cost / base;
    report({
      name: `redact ${label} vs a copy of it`,
      value: `${formatNs(cost)} (copy ${formatNs(base)})`,
      ratio,
      note: "x the copy (target <= 25)",
      pass: ratio <= 25,
    });
  }

  const corpus = adversarialCorpus(ITEM_CHARS, LITERALS);
  for (const rule of [...BUILTIN_RULE_NAMES, "env-value"]) {
    const alone = onlyRule(rule);
    let worst = 0;
    let worstLabel = "";
    // Its worst on text without a backslash too: what the rule itself costs, apart from the
    // unescaped view every rule shares on text with escapes.
    let plainWorst = 0;
    let plainLabel = "";
    for (const item of corpus) {
      const ms = msPerMB((t) => alone.redact(t), item.text);
      if (ms > worst) [worst, worstLabel] = [ms, item.label];
      if (!item.text.includes("\\") && ms > plainWorst) [plainWorst, plainLabel] = [ms, item.label];
    }
    report({
      name: `rule ${rule} alone, worst of ${corpus.length} adversarial inputs`,
      value: `${worst.toFixed(1)} ms per MB on ${worstLabel}; without escapes ${plainWorst.toFixed(1)} on ${plainLabel}`,
      ratio: worst,
      note: `ms per MB (target <= ${TARGET_MS_PER_MB})`,
      pass: worst <= TARGET_MS_PER_MB,
    });
  }

  const all = corpus.map((item) => ({ item, ms: msPerMB((t) => redactor.redact(t), item.text) })).sort((a, b) => b.ms - a.ms);
  const top = all[0]!;
  report({
    name: `all rules, worst of ${corpus.length} adversarial inputs`,
    value: `${top.ms.toFixed(1)} ms per MB on ${top.item.label}; next: ${all
      .slice(1, 4)
      .map((a) => `${a.item.label} ${a.ms.toFixed(1)}`)
      .join(", ")}`,
    ratio: top.ms,
    note: `ms per MB (target <= ${TARGET_MS_PER_MB})`,
    pass: top.ms <= TARGET_MS_PER_MB,
  });
  // Linear: the costliest inputs at 1 MB against 256 KB of the same pattern.
  const large = new Map(adversarialCorpus(4 * ITEM_CHARS, LITERALS).map((i) => [i.label, i.text]));
  for (const { item } of all.slice(0, 5)) {
    const tSmall = msPerMB((t) => redactor.redact(t), item.text) * (item.text.length / 1e6);
    const big = large.get(item.label)!;
    const tLarge = msPerMB((t) => redactor.redact(t), big, 2) * (big.length / 1e6);
    const ratio = tLarge / tSmall;
    report({
      name: `all rules on ${item.label}: 1 MB vs 256 KB`,
      value: `${tLarge.toFixed(1)} ms at 1 MB, ${tSmall.toFixed(1)} ms at 256 KB`,
      ratio,
      note: "linear = 4 (target <= 6)",
      pass: ratio <= 6,
    });
  }
};

export default suite;
