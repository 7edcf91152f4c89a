/**
 * The adapter reads pi through the shapes of host/pi/pi-api.ts, cast once (`piApiOf`). These checks
 * hold those shapes to the declarations of the pi under test: `npx tsc --noEmit` fails when pi
 * changes a field the adapter reads (the assertions are types; at run time they only name them).
 */
import type {
  BeforeAgentStartEvent,
  ContextEvent,
  ExtensionAPI,
  ExtensionContext,
  SessionShutdownEvent,
  SessionStartEvent,
  ToolCallEvent,
  ToolResultEvent,
  TurnEndEvent,
  TurnStartEvent,
  UserBashEvent,
} from "@earendil-works/pi-coding-agent";
import { describe, expectTypeOf, it } from "vitest";
import type {
  PiApi,
  PiBeforeAgentStartEvent,
  PiContext,
  PiContextEvent,
  PiSessionEvent,
  PiToolCallEvent,
  PiToolResultEvent,
  PiTurnEndEvent,
  PiTurnStartEvent,
  PiUserBashEvent,
} from "../../../../host/pi/pi-api.ts";

describe("pi-api.ts against the current pi's declarations", () => {
  it("pi's context and the events the adapter binds have the fields it reads", () => {
    expectTypeOf<ExtensionContext>().toExtend<PiContext>();
    expectTypeOf<SessionStartEvent>().toExtend<PiSessionEvent>();
    expectTypeOf<SessionShutdownEvent>().toExtend<PiSessionEvent>();
    expectTypeOf<TurnStartEvent>().toExtend<PiTurnStartEvent>();
    expectTypeOf<TurnEndEvent>().toExtend<PiTurnEndEvent>();
    expectTypeOf<BeforeAgentStartEvent>().toExtend<PiBeforeAgentStartEvent>();
    expectTypeOf<UserBashEvent>().toExtend<PiUserBashEvent>();
    expectTypeOf<ToolCallEvent>().toExtend<PiToolCallEvent>();
    expectTypeOf<ToolResultEvent>().toExtend<PiToolResultEvent>();
    // pi's message types are interfaces without an index signature: the messages are read by role and content.
    expectTypeOf<ContextEvent["messages"][number]>().toExtend<Pick<PiContextEvent["messages"][number], "role">>();
  });

  it("pi's API has the members the adapter calls", () => {
    expectTypeOf<ExtensionAPI["getActiveTools"]>().toExtend<PiApi["getActiveTools"]>();
    expectTypeOf<ExtensionAPI["setActiveTools"]>().toExtend<PiApi["setActiveTools"]>();
    expectTypeOf<ExtensionAPI["appendEntry"]>().toExtend<PiApi["appendEntry"]>();
    expectTypeOf<ReturnType<ExtensionAPI["getAllTools"]>>().toExtend<ReturnType<PiApi["getAllTools"]>>();
  });
});
