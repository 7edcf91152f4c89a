import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { definePlugin, definePreset, type Governor } from "pi-governor";
import { CWD_CHANGE_REASON, SessionGovernors } from "../../../../host/pi/session-governors.ts";

/** A real governor for `cwd` whose sessionShutdown hook records what closed it. */
function governorFor(cwd: string, closed: string[]): Promise<Governor> {
  const recorder = definePlugin({
    name: "test:closer",
    configKey: "closer",
    description: "records sessionShutdown",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.sessionShutdown.tap({ name: "test:closer" }, (info) => void closed.push(`${info.cwd}:${info.reason}`));
    },
  });
  const preset = definePreset({ name: "closer", description: "", plugins: () => [recorder()] });
  return createGovernor({ preset, cwd, agentDir: "", env: {}, layers: [] });
}

describe("SessionGovernors", () => {
  it("keeps the governor of the same cwd, and builds one governor for a new cwd even when several events ask at once", async () => {
    const closed: string[] = [];
    const built: string[] = [];
    const first = await governorFor("/a", closed);
    const changes: Array<[Governor, Governor]> = [];
    const governors = new SessionGovernors(
      first,
      "/a",
      async (cwd) => (built.push(cwd), governorFor(cwd, closed)),
      (next, previous) => void changes.push([next, previous]),
    );
    expect(await governors.forCwd("/a")).toBe(first);
    const [x, y, z] = await Promise.all([governors.forCwd("/b"), governors.forCwd("/b"), governors.forCwd("/b")]);
    expect(built).toEqual(["/b"]);
    expect(x).toBe(y);
    expect(y).toBe(z);
    expect(x.services.cwd).toBe("/b");
    expect(governors.governor).toBe(x);
    expect(governors.cwd).toBe("/b");
    // The old governor is closed through its sessionShutdown hooks (its children stop there).
    expect(closed).toEqual([`/a:${CWD_CHANGE_REASON}`]);
    expect(changes).toEqual([[x, first]]);
  });

  it("a failed build keeps the current governor and reports the error to the caller", async () => {
    const closed: string[] = [];
    const first = await governorFor("/a", closed);
    const governors = new SessionGovernors(
      first,
      "/a",
      async () => Promise.reject(new Error("disk gone")),
      () => undefined,
    );
    await expect(governors.forCwd("/b")).rejects.toThrow("disk gone");
    expect(governors.governor).toBe(first);
    expect(governors.cwd).toBe("/a");
    expect(closed).toEqual([]);
  });
});
