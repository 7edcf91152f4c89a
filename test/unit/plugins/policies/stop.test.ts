/**
 * After a stop, the policies gate refuses every call of the run as stopped and marks it to end the
 * run, before any rule: no ask dialog is shown, and a call the deny list refuses still ends the run.
 * Driven through pi's events (pi-governor/testing): a prompt starts a run, each call passes pi's
 * `tool_call` gate.
 */
import { describe, expect, it } from "vitest";
import { fakePiHost } from "pi-governor/testing";
import { policies } from "../../../../plugins/policies/index.ts";

describe("a stopped run", () => {
  it("refuses every later call as stopped with terminate, without a dialog, denied calls included; a new run starts afresh", async () => {
    const host = await fakePiHost({
      plugins: [policies()],
      overrides: { policies: { limits: [{ tools: "*", perRun: 1, onExceed: "stop" }], deny: ["write"], rules: [{ tools: "bash", action: "ask" }] } },
      ui: { confirm: () => true, select: (_title, options) => options[0], editor: (_title, text) => text },
    });
    await host.start();
    await host.prompt("go");
    expect(await host.callTool("read")).toMatchObject({ isError: false });
    const stop = await host.callTool("read");
    expect(stop).toMatchObject({ isError: true, terminate: true, blocked: expect.stringMatching(/^Stopped: this run reached its limit of 1 tool calls/) });
    for (const tool of ["bash", "write", "read"]) expect(await host.callTool(tool)).toEqual(stop);
    expect(host.dialogs).toEqual([]);
    await host.prompt("again");
    expect((await host.callTool("write")).blocked).toMatch(/Refused by the user's policy \(policies\.deny\)/);
    await host.shutdown();
  });
});
