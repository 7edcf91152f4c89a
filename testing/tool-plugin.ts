/**
 * Test plugins that only contribute tools: the plugin a test needs so that a governor has something to
 * call, without writing the `definePlugin` boilerplate (empty config schema, one owner) each time; and
 * `testTool` for tests that register a tool on a bare Pipeline.
 */
import { Type } from "typebox";
import { z } from "zod";
import { definePlugin, type GovernedToolDefinition } from "../core/index.ts";

/** A tool for a test plugin: `name` and `execute` are required; `description` defaults to "", `parameters` to an empty object. */
export type TestTool = Omit<GovernedToolDefinition, "description" | "parameters"> & Partial<Pick<GovernedToolDefinition, "description" | "parameters">>;

/** A full tool definition from a {@link TestTool}: empty description and no parameters unless given. */
export function testTool(tool: TestTool): GovernedToolDefinition {
  return { description: "", parameters: Type.Object({}), ...tool };
}

/** Who the test plugin is: `name` (scope:name, also the tools' owner; default "test:tools"), its config key (default "testTools") and description (default ""). */
export interface ToolPluginIdentity {
  name?: string;
  configKey?: string;
  description?: string;
}

/** A plugin factory that registers `tools` (in order) and nothing else; its config section is empty. */
export function toolsPlugin(tools: readonly TestTool[], identity: ToolPluginIdentity = {}) {
  const name = identity.name ?? "test:tools";
  return definePlugin({
    name,
    configKey: identity.configKey ?? "testTools",
    description: identity.description ?? "",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      for (const tool of tools) pipeline.registerTool(name, testTool(tool));
    },
  });
}

/** {@link toolsPlugin} for the common case of a single tool. */
export function oneToolPlugin(tool: TestTool, identity: ToolPluginIdentity = {}) {
  return toolsPlugin([tool], identity);
}
