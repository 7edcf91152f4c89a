/**
 * kota_* tools refuse arguments they do not know, in a real pi session (faux model) over the KotaDB
 * stand-in: pi's own validation lets unknown keys through, so `kota_impact({ files })` would run
 * without files and answer "Risk: LOW". Each call with an unknown or misspelled argument is an error
 * naming the valid arguments (and the likely one), and KotaDB is never asked.
 */
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assertNoLiveChildren, type KotaE2e, startKotaSession } from "../helpers/kota-e2e.ts";
import { standinCalls } from "../helpers/kota-standin.ts";

let e2e: KotaE2e | undefined;
let logDir: string | undefined;
afterEach(async () => {
  await e2e?.dispose();
  e2e = undefined;
  if (logDir) rmSync(logDir, { recursive: true, force: true });
  assertNoLiveChildren();
});

const call = (name: string, args: Record<string, unknown>) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" });

/** Each wrong call and what its error must say. */
const WRONG: ReadonlyArray<[tool: string, args: Record<string, unknown>, error: RegExp]> = [
  [
    "kota_impact",
    { change_type: "refactor", description: "change add", files: ["src/utils/math.ts"] },
    /unknown argument "files" \(valid: change_type, description, files_to_modify, files_to_create, files_to_delete, breaking_changes\); did you mean files_to_modify, files_to_create or files_to_delete\?/,
  ],
  ["kota_search", { query: "add", filters: { globs: "src/**" } }, /unknown argument "filters\.globs" .*did you mean glob\?/],
  ["kota_deps", { file_path: "src/utils/math.ts", dept: 2 }, /unknown argument "dept" .*did you mean depth\?/],
  ["kota_usages", { symbol: "add", files: "src/utils/math.ts" }, /unknown argument "files" .*did you mean file\?/],
  ["kota_task_context", { files: ["src/utils/math.ts"], include_test: true }, /unknown argument "include_test" .*did you mean include_tests\?/],
  ["kota_index", { pth: "src" }, /unknown argument "pth" \(valid: path, force\); did you mean path\?/],
  ["kota_status", { verbose: true }, /unknown argument "verbose" \(it takes no arguments\)/],
];

describe("kota e2e: unknown arguments are refused", () => {
  it("answers every kota_* call with an unknown argument with an error naming the valid ones; KotaDB is not asked", async () => {
    logDir = mkdtempSync(join(tmpdir(), "kota-unknown-args-"));
    const log = join(logDir, "calls.jsonl");
    e2e = await startKotaSession({
      config: { kota: { env: { KOTADB_STANDIN_LOG: log } } },
      responses: [...WRONG.map(([tool, args]) => call(tool, args)), fauxAssistantMessage([fauxText("done")])],
    });
    await e2e.pi.session.prompt("what breaks if I change src/utils/math.ts?");
    const results = e2e.pi.session.messages.filter((m) => m.role === "toolResult") as unknown as Array<{
      toolName: string;
      isError: boolean;
      content: Array<{ text?: string }>;
    }>;
    expect(results.map((r) => r.toolName)).toEqual(WRONG.map(([tool]) => tool));
    WRONG.forEach(([tool, , error], i) => {
      const text = results[i]!.content.map((b) => b.text ?? "").join("\n");
      expect(results[i]!.isError, tool).toBe(true);
      expect(text, tool).toMatch(error);
      expect(text, tool).not.toMatch(/Risk:/);
    });
    // Only kota_status's report could have reached KotaDB; none of the refused calls did.
    const asked = standinCalls(log).map((c) => c.name);
    for (const kotaTool of ["analyze_change_impact", "search", "search_dependencies", "find_usages", "generate_task_context", "index_repository"])
      expect(asked).not.toContain(kotaTool);
  }, 120_000);
});
