/**
 * `kota_impact` rendering of KotaDB's `analyze_change_impact` answer, summary first: risk, the
 * affected surface (what changes, what to review), and the tests to run or add. KotaDB's own summary
 * and deployment notes come after; its duplicated test file entries are folded.
 */
import { arr, cut, listLine, lines, obj, s, strs, unique } from "./text.ts";

/** Most files listed per group. */
const MAX_FILES = 20;
/** Most suggested new test files. */
const MAX_NEW_TESTS = 5;

/** Renders an analyze_change_impact answer. */
export function renderImpact(answer: Record<string, unknown>): string {
  const affected = arr(answer.affected_files).map(obj);
  const changed = affected.filter((a) => s(a.change_requirement) !== "review");
  const review = affected.filter((a) => s(a.change_requirement) === "review");
  const scope = obj(answer.test_scope);
  const existingTests = unique(strs(scope.test_files));
  const newTests = unique(strs(scope.recommended_test_files));
  const risk = s(answer.risk_level).toUpperCase() || "UNKNOWN";
  const warnings = strs(answer.architectural_warnings);
  const conflicts = arr(answer.conflicts).map((c) => (typeof c === "string" ? c : JSON.stringify(c)));
  const changedText = changed.map(
    (a) => `${s(a.path)} (${s(a.change_requirement)}; ${s(a.direct_dependents_count)} direct / ${s(a.indirect_dependents_count)} indirect dependents)`,
  );
  return lines(
    `Risk: ${risk}. Affected surface: ${affected.length} files (${changed.length} changed, ${review.length} to review).`,
    existingTests.length ? listLine("Recommended tests to run", existingTests, MAX_FILES) : "Recommended tests to run: none found for the affected files.",
    listLine("Tests to consider adding", newTests, MAX_NEW_TESTS),
    listLine("Changed", changedText, MAX_FILES),
    listLine(
      "Review (dependents)",
      review.map((a) => s(a.path)),
      MAX_FILES,
    ),
    s(scope.coverage_impact) && `Coverage: ${cut(s(scope.coverage_impact), 160)}`,
    listLine("Warnings", warnings, 5),
    listLine("Conflicts", conflicts, 5),
    s(answer.deployment_impact) && `Deployment: ${cut(s(answer.deployment_impact), 200)}`,
    s(answer.summary) && `KotaDB summary: ${cut(s(answer.summary), 300)}`,
  );
}

/** The first line of a rendered impact: risk and affected surface (what pruning must keep). */
export function impactHeadline(rendered: string): string {
  return rendered.split("\n", 1)[0] ?? "";
}
