/**
 * The e2e pass runs against the pi that PI_GOVERNOR_PI_HOME names (default: the devDependency):
 * every pi import of the tests, and of pi-ai and typebox, must come from that one install.
 */
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import { VERSION } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { isEarendilPi, piHost } from "../helpers/pi-host.ts";

describe("pi under test", () => {
  it("is the pi in PI_GOVERNOR_PI_HOME, with its own pi-ai and typebox", () => {
    expect(VERSION).toBe(piHost.version);
    // pi-ai's faux provider: `registerFauxProvider` on both lines; `fauxProvider` objects only on 0.74+.
    expect(typeof piAi.registerFauxProvider).toBe("function");
    expect("fauxProvider" in piAi).toBe(isEarendilPi);
    expect(Type.String()).toMatchObject({ type: "string" });
    if (process.env.PI_GOVERNOR_PI_HOME) expect(piHost.home).not.toBe(join(import.meta.dirname, "../.."));
  });
});
