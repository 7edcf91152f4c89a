import { describe, expect, it } from "vitest";
import { ignoredProjectLaunchNote } from "../../../../plugins/kota/runtime-check.ts";

describe("ignoredProjectLaunchNote", () => {
  it("names the ignored launch keys, the project file and the exact line for the global file", () => {
    const note = ignoredProjectLaunchNote([{ source: "/repo/.pi/pi-governor.json", section: "kota", key: "command" }], "/home/u/.pi/agent");
    expect(note).toBe(
      'The project\'s kota.command (set in /repo/.pi/pi-governor.json) was ignored: a project config may not choose what program runs. If you trust this repository, add "allowProjectSpawnConfig": true to /home/u/.pi/agent/pi-governor.json, then run /kota restart.',
    );
  });

  it("says nothing when no kota launch key was ignored", () => {
    expect(ignoredProjectLaunchNote(undefined, "/a")).toBe("");
    expect(ignoredProjectLaunchNote([{ source: "/repo/.pi/pi-governor.json", section: "executionLog", key: "dbPath" }], "/a")).toBe("");
  });
});
