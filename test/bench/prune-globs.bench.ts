/**
 * `protectedFilePatterns` matching cost per model request. Globs come from project files, paths
 * from what the model read. Baseline: what an unbounded config asked for on every request (100
 * patterns of 200 characters against a 20,000-character path, each pattern matched anew). Then the
 * bounded matcher: the same path (longer than PATH_MAX, never matched), the largest config the schema
 * accepts (2,000 pattern characters) against a 4,096-character path on first sight, and that path on
 * a later request (remembered). Target: a later request costs under 1% of the baseline.
 */
import { pathGlobMatches, protectedPathMatcher } from "../../lib/context/index.ts";
import { formatNs, type BenchSuite } from "./harness.ts";

function timeNs(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start);
}

const suite: BenchSuite = async (report) => {
  const star = (n: number) => `src/${"*a".repeat(n)}*b`.slice(0, 200);
  const hundred = Array.from({ length: 100 }, () => star(98));
  const longPath = `src/${"a".repeat(20_000)}`;
  const baseline = timeNs(() => hundred.some((g) => pathGlobMatches(g, longPath)));
  report({ name: "100 globs x 200 chars vs a 20,000-char path, unbounded (every request)", value: formatNs(baseline) });

  const bounded = protectedPathMatcher(hundred, "/p");
  const skipped = timeNs(() => bounded(longPath));
  report({
    name: "the same with the bounds (path over PATH_MAX: not matched)",
    value: formatNs(skipped),
    ratio: skipped / baseline,
    note: "x the unbounded request",
  });

  const largest = Array.from({ length: 10 }, () => star(98));
  const path4k = `src/${"a".repeat(4_090)}`;
  const matcher = protectedPathMatcher(largest, "/p");
  const first = timeNs(() => matcher(path4k));
  report({
    name: "largest accepted config (2,000 pattern chars) vs a 4,096-char path, first sight",
    value: formatNs(first),
    ratio: first / baseline,
    note: "x the unbounded request (once per path and session)",
  });
  const later: number[] = [];
  for (let i = 0; i < 101; i++) later.push(timeNs(() => matcher(path4k)));
  later.sort((a, b) => a - b);
  const again = later[50]!;
  report({
    name: "that path on a later request (remembered)",
    value: formatNs(again),
    ratio: again / baseline,
    note: "x the unbounded request (target < 0.01)",
    pass: again / baseline < 0.01,
  });
};
export default suite;
