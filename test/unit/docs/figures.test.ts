/**
 * Figures the docs quote come from a run the tests repeat: the replay summary in
 * plugins/prune/README.md is what `pi-governor replay` prints for the bundled sample session with the
 * default config (what `npm run replay` shows on a machine with no pi sessions).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.ts";
import { repoRoot } from "../../helpers/pi-host.ts";

describe("figures in the docs", () => {
  it("the prune README's replay summary is what the replay of the bundled sample prints", { timeout: 60_000 }, async () => {
    let out = "";
    const code = await main(["replay", join(repoRoot, "cli/replay/sample/session.jsonl"), "--no-chart", "--no-turns"], {
      out: (t) => void (out += t),
      err: () => {},
    });
    expect(code).toBe(0);
    const summary = out.split("\n").filter((l) => l.startsWith("Pruning saved") || l.startsWith("the same pruning perfectly timed"));
    expect(summary).toHaveLength(2);
    const readme = readFileSync(join(repoRoot, "plugins/prune/README.md"), "utf8");
    expect(readme).toContain(`\n${summary.join("\n")}\n`);
  });
});
