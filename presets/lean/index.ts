/**
 * The `lean` preset: no MCP server. Context and output governance for pi's built-in tools only: large
 * `read`/`bash` output goes to the blob cache (excerpt + `blob_read`), and old tool output is pruned
 * (the model may fold finished turns: fold).
 * Pick it with `{ "preset": "lean" }` in ~/.pi/agent/pi-governor.json (or PI_GOVERNOR_PRESET=lean).
 */
import { definePreset } from "../../core/index.ts";
import { BUILTIN_BLOB_TOOLS, blobs } from "../../plugins/blobs/index.ts";
import { chaos } from "../../plugins/chaos/index.ts";
import { doctor } from "../../plugins/doctor/index.ts";
import { fold } from "../../plugins/fold/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { policies } from "../../plugins/policies/index.ts";
import { recall } from "../../plugins/recall/index.ts";
import { redact } from "../../plugins/redact/index.ts";
import { telemetry } from "../../plugins/telemetry/index.ts";

/** The lean preset. */
export const leanPreset = definePreset({
  name: "lean",
  description: "No MCP server: blobs for pi's read/bash output and pruning of old tool output.",
  plugins: () => [redact(), policies(), blobs({ builtinTools: [...BUILTIN_BLOB_TOOLS] }), fold(), prune(), recall(), telemetry(), chaos(), doctor()],
});
