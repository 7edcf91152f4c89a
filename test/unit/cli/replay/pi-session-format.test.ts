import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SAMPLE_SESSION } from "../../../../cli/replay/command.ts";
import { loadPiSessionFormat } from "../../../../cli/replay/pi-session-format.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";

describe("older session versions replay through pi's own migration", () => {
  /** The sample as a version 1 session: no ids, no parent links. */
  const v1 = () =>
    readFileSync(SAMPLE_SESSION, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.type === "session") return JSON.stringify({ ...e, version: 1 });
        delete e.id;
        delete e.parentId;
        return JSON.stringify(e);
      })
      .join("\n");

  it("with pi installed every entry is read; without it each line is 'entry without an id'", async () => {
    const format = await loadPiSessionFormat();
    expect(format?.pi.scope).toMatch(/^@(mariozechner|earendil-works)$/);
    const withPi = parseSession(v1(), "v1.jsonl", format!.migrate);
    const assistantReplies = v1()
      .split("\n")
      .filter((l) => l.includes('"role":"assistant"')).length;
    expect(withPi.problems).toEqual([]);
    // Version 1 has no branches: pi's migration links each entry to the one before it.
    expect(withPi.requests.length).toBe(assistantReplies);
    const without = parseSession(v1(), "v1.jsonl");
    expect(without.requests).toHaveLength(0);
    expect(without.problems[0]).toMatch(/entry without an id .*install pi/);
  });
});
