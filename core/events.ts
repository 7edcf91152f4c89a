import type { PluginError } from "./errors.ts";
import type { ToolObservation } from "./observation.ts";
import type { LogRecord } from "./services.ts";

/**
 * What observers see. Observers never steer control flow; they log, count and display.
 * `custom` carries plugin-specific events (`source` names the plugin).
 */
export type PipelineEvent =
  | { type: "tool_start"; toolName: string; toolCallId: string; args: Readonly<Record<string, unknown>> }
  | { type: "tool_end"; toolCallId: string; observation: ToolObservation }
  | { type: "plugin_error"; error: PluginError }
  | { type: "log"; record: LogRecord }
  | { type: "custom"; source: string; name: string; data?: Record<string, unknown> };
