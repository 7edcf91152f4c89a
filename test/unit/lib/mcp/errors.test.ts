/** The structured error a call gets when its server's connection is lost. */
import { describe, expect, it } from "vitest";
import { ServerConnectionLostError } from "../../../../lib/mcp/errors.ts";
import { isErrorCategory, isGovernorError } from "../../../../core/errors.ts";
import { failure } from "../../../../core/observation.ts";

describe("ServerConnectionLostError", () => {
  it("is a governed connection_lost error with the structured fields for the agent", () => {
    const e = new ServerConnectionLostError("down", {
      server: "kota",
      reconnectStatus: "degraded",
      reconnectAttempts: 5,
      userAction: "Run /kota restart",
      agentMessage: "Tell the user.",
    });
    expect(isGovernorError(e) && isErrorCategory(e, "connection_lost")).toBe(true);
    expect(e.toJSON()).toMatchObject({
      error: "server_connection_lost",
      recoverable: true,
      reconnect_status: "degraded",
      reconnect_attempts: 5,
      user_action: "Run /kota restart",
    });
    expect(failure("kota_search", e).details.error).toMatchObject({ error: "server_connection_lost" });
  });
});
