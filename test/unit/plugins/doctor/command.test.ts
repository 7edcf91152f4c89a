/**
 * `/governor doctor` in a session: the report is the answer to the user's question, notified as
 * "info" (pi's TUI shows an "error" notification as `Error: <text>`, which put the whole report
 * under Error:), and what failed follows on one line at its level.
 */
import { describe, expect, it } from "vitest";
import { createGovernor } from "pi-governor/host";
import { definePreset } from "pi-governor";
import { doctor } from "../../../../plugins/doctor/index.ts";
import { kota } from "../../../../plugins/kota/index.ts";

describe("/governor doctor in a session", () => {
  it("notifies the report as info and a one-line summary of the failures at error level", async () => {
    const preset = definePreset({ name: "t", description: "", plugins: () => [kota(), doctor()] });
    const governor = await createGovernor({
      preset,
      cwd: process.cwd(),
      agentDir: process.cwd(),
      env: { PATH: "/nonexistent" },
      layers: [{ kind: "global", source: "G", data: { kota: { command: "no-such-kotadb-binary" } } }],
    });
    const notes: Array<{ message: string; level: string | undefined }> = [];
    const ui = {
      hasUI: true,
      notify: (message: string, level?: string) => void notes.push({ message, level }),
      setStatus: () => {},
      confirm: async () => false,
    };
    await governor.pipeline.commands.get("governor doctor")!.command.handler("", { ui, cwd: process.cwd(), sessionId: "" } as never);
    expect(notes).toHaveLength(2);
    expect(notes[0]!.level).toBe("info");
    expect(notes[0]!.message).toMatch(/^pi-governor doctor\n/);
    expect(notes[0]!.message).toMatch(/FAIL {2}kota\.command \(no-such-kotadb-binary\)/);
    expect(notes[1]).toEqual({
      level: "error",
      message: expect.stringMatching(/^pi-governor doctor: failed: kota\.command \(no-such-kotadb-binary\)[^\n]*\. The report above has the fix for each\.$/),
    });
    // Nothing multi-line is ever notified at error level.
    expect(notes.filter((n) => n.level === "error" && n.message.includes("\n"))).toEqual([]);
  });
});
