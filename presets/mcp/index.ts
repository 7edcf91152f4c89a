/**
 * The `mcp` preset: any MCP servers from config (`"mcp": { "servers": { ... } }`) as governed
 * `<server>_<tool>` tools behind the resilience stack, with output budgets, blobs and pruning.
 * Pick it with `{ "preset": "mcp" }`. Server commands are trusted keys: set them in the global config.
 */
import { definePreset } from "../../core/index.ts";
import { BUILTIN_BLOB_TOOLS, blobs } from "../../plugins/blobs/index.ts";
import { chaos } from "../../plugins/chaos/index.ts";
import { doctor } from "../../plugins/doctor/index.ts";
import { budget } from "../../plugins/budget/index.ts";
import { breaker } from "../../plugins/circuit-breaker/index.ts";
import { executionLog } from "../../plugins/execution-log/index.ts";
import { fold } from "../../plugins/fold/index.ts";
import { mcpServers } from "../../plugins/mcp-servers/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { policies } from "../../plugins/policies/index.ts";
import { recall } from "../../plugins/recall/index.ts";
import { redact } from "../../plugins/redact/index.ts";
import { telemetry } from "../../plugins/telemetry/index.ts";
import { retry } from "../../plugins/retry/index.ts";
import { timeout } from "../../plugins/timeout/index.ts";

/** The mcp preset. */
export const mcpPreset = definePreset({
  name: "mcp",
  description: "MCP servers from config as governed tools, with resilience, budgets, blobs and pruning.",
  plugins: () => [
    redact(),
    executionLog(),
    policies(),
    breaker(),
    retry(),
    timeout(),
    budget(),
    mcpServers(),
    blobs({ builtinTools: [...BUILTIN_BLOB_TOOLS] }),
    fold(),
    prune(),
    recall(),
    telemetry(),
    chaos(),
    doctor(),
  ],
});
