/**
 * Placeholder sizes: the median length of the placeholders the kota preset's pruning sends for pi's
 * built-in tools and the kota tools, on the generated sessions, as they come and with a blob id on
 * every result (the recall plugin stores every output). Target: at most 110 chars at the median.
 */
import { median, sentPlaceholders, withRecallBlobs } from "../../cli/replay/placeholder-sizes.ts";
import { governorPolicy } from "../../cli/replay/policies.ts";
import { type GenerateOptions, generateSession } from "../../cli/replay/sample/generate.ts";
import { parseSession } from "../../cli/replay/session-file.ts";
import { kotaPrune } from "../../presets/kota/prune-policy.ts";
import type { BenchSuite } from "./harness.ts";

const BOUND = 110;
const TOOLS = new Set(["read", "bash", "grep", "find", "ls", "edit", "write", "kota_search", "kota_deps", "kota_usages", "kota_impact", "kota_task_context"]);

const suite: BenchSuite = async (report) => {
  const kinds: Array<[string, Omit<GenerateOptions, "turns">]> = [
    ["read-mostly", {}],
    ["coding+folds", { coding: true, folds: true }],
  ];
  for (const [kind, options] of kinds) {
    for (const turns of [30, 100, 300]) {
      const requests = parseSession(
        generateSession({ turns, seed: 1000 + turns, ...options })
          .map((l) => JSON.stringify(l))
          .join("\n"),
      ).requests;
      for (const blobs of [false, true]) {
        const sent = (await sentPlaceholders(blobs ? withRecallBlobs(requests) : requests, governorPolicy({ plugin: () => kotaPrune() }))).filter((p) =>
          TOOLS.has(p.toolName),
        );
        const all = median(sent.map((p) => p.text.length));
        const full = median(sent.filter((p) => / chars[\],]/.test(p.text)).map((p) => p.text.length));
        report({
          name: `${turns} turns ${kind}${blobs ? ", a blob id on every result" : ""}: median placeholder`,
          value: `${all} chars (${sent.length} placeholders; normal mode's alone ${full})`,
          ratio: all / BOUND,
          note: `x ${BOUND} chars (target <= 1)`,
          pass: all <= BOUND,
        });
      }
    }
  }
};
export default suite;
