/**
 * The user's shell commands pi-governor did not see start are found where pi records every one (a
 * `bashExecution` message in the session): a recorded command no `user_bash` announced is unseen;
 * what a session held before it started, or was announced, is not.
 */
import { describe, expect, it } from "vitest";
import { UserShellWatch } from "../../../../host/pi/user-shell.ts";

const bash = (command: string) => ({ type: "message", message: { role: "bashExecution", command, output: "", exitCode: 0 } });
const other = { type: "message", message: { role: "user", content: "hi" } };

describe("UserShellWatch", () => {
  it("counts recorded commands that were not announced, once each; the session's past is not new", () => {
    const entries: Array<Record<string, unknown>> = [bash("ls"), other];
    const sm = { getEntries: () => entries };
    const watch = new UserShellWatch();
    watch.reset(sm);
    expect(watch.unseen(sm)).toBe(0);
    watch.announce("echo seen");
    entries.push(bash("echo seen"), other, bash("echo unseen"), bash("echo unseen"));
    expect(watch.unseen(sm)).toBe(2);
    expect(watch.unseen(sm)).toBe(0);
    // Announced twice, recorded twice: both seen; a third recording of it was not announced.
    watch.announce("x");
    watch.announce("x");
    entries.push(bash("x"), bash("x"), bash("x"));
    expect(watch.unseen(sm)).toBe(1);
  });

  it("a replaced session (fewer entries) is read from its end; a pi without getEntries reports nothing", () => {
    const watch = new UserShellWatch();
    let entries = [bash("a"), bash("b")];
    const sm = { getEntries: () => entries };
    watch.reset(sm);
    entries = [bash("c")];
    expect(watch.unseen(sm)).toBe(0);
    entries.push(bash("d"));
    expect(watch.unseen(sm)).toBe(1);
    expect(watch.unseen({})).toBe(0);
  });
});
