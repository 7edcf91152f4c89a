/**
 * The `mcp` config section: which MCP servers to run and how. `servers` is a trusted key: a project
 * config file cannot choose programs to spawn unless the user's global config allows it.
 *
 * ```json
 * { "mcp": { "servers": { "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "tools": ["echo"] } } } }
 * ```
 */
import { z } from "zod";
import { boundedRecord, MAX_CONFIG_ENTRIES, MAX_TOOL_NAME_CHARS, pathSchema, textSchema, toolListSchema, toolNameSchema } from "../../lib/config/index.ts";

/** A duration in milliseconds, at most one hour (far below what Node timers accept, 2^31-1 ms). */
const ms = z.number().int().min(0).max(3_600_000);

/** One declared tool: a name, or a name with what pi needs to show it without starting the server. */
export const declaredToolSchema = z.union([
  toolNameSchema(),
  z
    .object({
      name: toolNameSchema().describe("The server's tool name."),
      description: textSchema().optional().describe('Shown to the model. Default: "<tool> (MCP server <name>)".'),
      inputSchema: boundedRecord(z.string().max(MAX_TOOL_NAME_CHARS), z.unknown(), 64)
        .optional()
        .describe("JSON Schema of the arguments. Default: any object."),
      readOnly: z.boolean().optional().describe("Safe to replay after a reconnect (like MCP readOnlyHint). Default false."),
      idempotent: z.boolean().optional().describe("Safe to replay after a reconnect (like MCP idempotentHint). Default false."),
    })
    .strict(),
]);

/** One server's options. Units are milliseconds; defaults are those of ManagedMcpServer. */
export const serverSchema = z
  .object({
    command: pathSchema().min(1).describe("Program to run (looked up on PATH)."),
    args: z.array(pathSchema()).max(MAX_CONFIG_ENTRIES).optional().describe("Arguments. Default []."),
    cwd: pathSchema().optional().describe("Working directory. Default: pi's working directory."),
    env: boundedRecord(z.string().max(MAX_TOOL_NAME_CHARS), pathSchema())
      .optional()
      .describe("Environment for the server, over a safe default (HOME, PATH, SHELL, TERM, USER, LOGNAME). Nothing else is inherited. Default {}."),
    installHint: textSchema(500).optional().describe('What to install when the command is missing, e.g. "Bun (https://bun.sh)".'),
    tools: z
      .array(declaredToolSchema)
      .max(MAX_CONFIG_ENTRIES)
      .optional()
      .describe("Tools to register without starting the server at load (keeps the start lazy). Default: discover them by starting the server at load."),
    connectTimeoutMs: ms.optional().describe("Start + initialize limit. Default 10000."),
    maxReconnectAttempts: z.number().int().min(0).max(20).optional().describe("Reconnect attempts before degrading. Default 5."),
    heartbeatIntervalMs: ms.optional().describe("Ping period while calls are in flight; 0 disables. Default 500."),
    heartbeatTimeoutMs: ms.optional().describe("Unanswered ping limit (hang detection). Default 2000."),
    degradedCooldownMs: ms.optional().describe("Fail-fast period after degrading. Default 30000."),
    queueDeadlineMs: ms.optional().describe("How long a call may wait for a reconnect. Default 15000."),
    maxAnswerBytes: z
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024)
      .optional()
      .describe(
        "Largest answer taken from the server, in bytes; a larger one fails that call with an error naming this key, the server keeps running. Default 67108864 (64 MiB), at most 268435456 (256 MiB).",
      ),
    replayTools: toolListSchema().optional().describe("Tools safe to replay besides those the server marks read-only or idempotent. Default []."),
    maxTools: z
      .number()
      .int()
      .min(1)
      .max(5_000)
      .optional()
      .describe(
        "Most tools of this server offered to the model (its first ones in listed order); the rest are left out with a warning naming the counts. Default 200.",
      ),
    maxSchemaBytes: z
      .number()
      .int()
      .min(1_024)
      .max(16 * 1024 * 1024)
      .optional()
      .describe(
        "Most bytes of tool schemas (name, title, description, input schema as JSON) this server adds to every model request; tools that do not fit are left out with a warning. Default 262144 (256 KiB), at most 16777216.",
      ),
  })
  .strict();

const serverName = z
  .string()
  .max(32)
  .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/, "a server name starts with a letter and uses letters, digits, _ and - (max 32)");

/** The `mcp` section (without `enabled`). */
export const mcpServersSchema = z.object({
  servers: boundedRecord(serverName, serverSchema, 64).describe("MCP servers by name; each tool becomes <name>_<tool>."),
  fromPi: z
    .array(z.union([serverName, serverSchema.omit({ command: true, args: true, cwd: true, env: true }).extend({ name: serverName }).strict()]))
    .max(32)
    .describe(
      "Servers to take over from pi's own MCP config (<agent dir>/mcp.json, mcpServers; pi 0.99+), by name, or as { name, ...the options of mcp.servers but command, args, env and cwd }: pi-governor runs them (stdio only) with that entry's command, args, env and cwd. Set \"enabled\": false on the entry there so pi does not run it too. Default [].",
    ),
});

/** The `mcp` options. */
export type McpServersOptions = z.infer<typeof mcpServersSchema>;
/** One server's options. */
export type McpServerOptions = z.infer<typeof serverSchema>;
/** One `fromPi` entry: a server name, or a name with pi-governor's own options for it. */
export type FromPiEntry = McpServersOptions["fromPi"][number];
/** One declared tool. */
export type DeclaredTool = z.infer<typeof declaredToolSchema>;

/** Defaults: no servers. */
export const mcpServersDefaults: McpServersOptions = { servers: {}, fromPi: [] };
