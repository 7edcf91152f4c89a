/** A governor with blobs, recall and prune on private temp dirs, for recall's tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText, definePreset, type Governor, type ToolResultValue } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { prune } from "../../../../plugins/prune/index.ts";
import { recall } from "../../../../plugins/recall/index.ts";

export interface RecallHarness {
  gov: Governor;
  dir: string;
  blobDir: string;
  dbPath: string;
  /** Runs one tool result through the toolResult hook, as pi's tool_result event does. */
  result(toolName: string, toolCallId: string, text: string, input?: Record<string, unknown>): Promise<ToolResultValue>;
  /** Calls a governed tool and returns its text. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  dispose(): Promise<void>;
}

export async function recallHarness(
  options: { sessionId?: string; thresholdBytes?: number; recall?: Record<string, unknown>; cwd?: string } = {},
): Promise<RecallHarness> {
  const dir = mkdtempSync(join(tmpdir(), "pigov-recall-"));
  const blobDir = join(dir, "blobs");
  const dbPath = join(dir, "recall", "index.db");
  const preset = definePreset({ name: "recall-test", description: "", plugins: () => [blobs({ builtinTools: ["read", "bash"] }), recall(), prune()] });
  const gov = await createGovernor({
    preset,
    cwd: options.cwd ?? dir,
    agentDir: dir,
    env: {},
    layers: [],
    overrides: { blobs: { dir: blobDir, thresholdBytes: options.thresholdBytes ?? 16_384 }, recall: { dbPath, ...options.recall } },
  });
  const sessionId = options.sessionId ?? "session-1";
  gov.attachSession(sessionId, { hasUI: false, notify: () => {}, setStatus: () => {}, confirm: async () => false });
  await gov.pipeline.hooks.sessionStart.run({ sessionId, cwd: options.cwd ?? dir, reason: "startup" });
  return {
    gov,
    dir,
    blobDir,
    dbPath,
    result: (toolName, toolCallId, text, input = {}) =>
      gov.pipeline.hooks.toolResult.run(
        { toolName, toolCallId, input, content: [{ type: "text", text }], details: undefined, isError: false },
        { tool: undefined, sessionId },
      ),
    async call(name, args) {
      const obs = await gov.pipeline.callTool(name, args, { sessionId, toolCallId: `call-${name}-${Math.random()}` });
      return contentText(obs.content);
    },
    async dispose() {
      await gov.pipeline.hooks.sessionShutdown.run({ sessionId, cwd: dir, reason: "quit" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
