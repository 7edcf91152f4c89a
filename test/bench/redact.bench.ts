/**
 * Redaction cost: it runs on every tool result. Rows, each against a baseline in the same run:
 * - typical results (16 KB and 1 MB of this repository's source) against a plain copy of the text
 *   (a UTF-8 round trip, what storing it costs anyway); target: redaction <= 25x the copy.
 * - adversarial 1 MB inputs built to make backtracking rules slow (prefix floods, unterminated key
 *   blocks, header and assignment floods): the time at 1 MB against the time at 256 KB of the same
 *   pattern; linear time gives 4, target <= 6 (a quadratic rule would give 16).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Redactor } from "../../lib/redact/index.ts";
import { formatNs, nsPerCall, type BenchSuite } from "./harness.ts";

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

/** Inputs built to defeat each kind of rule, as `size` characters. */
const ADVERSARIAL: Record<string, (size: number) => string> = {
  "ghp_ flood": (n) => "ghp_".repeat(n / 4),
  "ghp_ + long run": (n) => `ghp_${"a".repeat(n - 4)}`,
  "sk- dashes": (n) => "sk-a".repeat(n / 4),
  "eyJ segments": (n) => "eyJaaaaa.".repeat(n / 9),
  "BEGIN key, no END": (n) => "-----BEGIN RSA PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAA\n".repeat(n / 52),
  "Authorization: flood": (n) => "Authorization: ".repeat(n / 15),
  "A_KEY= chain": (n) => "A_KEY=".repeat(n / 6),
  "scheme://u: no @": (n) => "a://u:".repeat(n / 6),
  "upper-case run": (n) => "A".repeat(n),
  "8Q~ near-misses": (n) => "aaa8Q~".repeat(n / 6),
};

const suite: BenchSuite = async (report) => {
  const redactor = new Redactor({ literals: ["an-env-secret-1", "another-env-value-22"] });
  for (const [label, size, iterations] of [
    ["16 KB source", 16 * 1024, 400],
    ["1 MB source", 1024 * 1024, 8],
  ] as const) {
    const text = sourceText(size);
    const base = await nsPerCall(() => copy(text), iterations, { warmup: 3 });
    const cost = await nsPerCall(() => redactor.redact(text), iterations, { warmup: 3 });
    const ratio = cost / base;
    report({
      name: `redact ${label} vs a copy of it`,
      value: `${formatNs(cost)} (copy ${formatNs(base)})`,
      ratio,
      note: "x the copy (target <= 25)",
      pass: ratio <= 25,
    });
  }
  for (const [name, build] of Object.entries(ADVERSARIAL)) {
    const small = build(256 * 1024);
    const large = build(1024 * 1024);
    const tSmall = await nsPerCall(() => redactor.redact(small), 8, { warmup: 2, rounds: 7 });
    const tLarge = await nsPerCall(() => redactor.redact(large), 2, { warmup: 1, rounds: 7 });
    const ratio = tLarge / tSmall;
    report({
      name: `adversarial ${name}: 1 MB vs 256 KB`,
      value: `${formatNs(tLarge)} at 1 MB, ${formatNs(tSmall)} at 256 KB`,
      ratio,
      note: "linear = 4 (target <= 6)",
      pass: ratio <= 6,
    });
  }
};

export default suite;
