/**
 * pi's own MCP client beside pi-governor (pi 1.x): a codemode script's nested MCP call gets the
 * server's whole `CallToolResult` (`content` byte-exact, `structuredContent`), with the default
 * preset loaded. Real pi SDK session (faux model), pi's MCP and codemode extensions, the big-answer
 * MCP server over stdio from a hermetic agent dir's mcp.json.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { createExtension } from "pi-governor/host";
import { BLOB_MARKER_PATTERN } from "../../plugins/blobs/index.ts";
import { mcpPreset } from "../../presets/index.ts";
import { bigAnswerServer } from "../fixtures/big-answer-mcp/command.ts";
import { FNV1A_SOURCE, fnv1a, numberedFiller } from "../fixtures/big-answer-mcp/filler.mjs";
import { faultyServer } from "../fixtures/faulty-mcp/command.ts";
import { hermeticDefaultPreset } from "../helpers/hermetic-preset.ts";
import { piHasBuiltinMcp, piHost } from "../helpers/pi-host.ts";
import { piTestScope, type PiTestSession } from "../helpers/pi-session.ts";

/** A 5 MB answer: 250 times pi's 20 KB model-facing cut. */
const BYTES = 5_000_000;

/** What the script returns about the call's result. */
interface ScriptReport {
  type: string;
  length: number;
  fnv1a: string;
  structured: unknown;
  isError: boolean;
}

/** The codemode script: one nested MCP call, the result read as a CallToolResult. */
const SCRIPT = `const r = await tools.mcp__big__big_structured({ bytes: ${BYTES} });
const checksum = ${FNV1A_SOURCE};
const text = r.content[0].text;
return { type: typeof r, length: text.length, fnv1a: checksum(text), structured: r.structuredContent, isError: r.isError === true };`;

/** The text of the codemode result pi stored. */
function codemodeResult(pi: PiTestSession): string {
  const result = pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === "codemode") as
    | { content?: Array<{ text?: string }> }
    | undefined;
  return (result?.content ?? []).map((b) => b.text ?? "").join("\n");
}

/** The script's JSON report, parsed out of codemode's result text. */
function reportIn(text: string): ScriptReport | undefined {
  const json = text.match(/\{"type".*\}/)?.[0];
  return json ? (JSON.parse(json) as ScriptReport) : undefined;
}

describe.skipIf(!piHasBuiltinMcp)(`pi's own MCP and codemode beside pi-governor (pi ${piHost.version})`, () => {
  const scope = piTestScope();

  it("a codemode script's nested MCP call gets the whole CallToolResult: a 5 MB text byte-exact and its structuredContent", { timeout: 180_000 }, async () => {
    const work = scope.tempDir("pigov-codemode-");
    const server = bigAnswerServer();
    try {
      const extension = hermeticDefaultPreset(work);
      const pi = await scope.start({
        extensions: [extension],
        cwd: work,
        piMcp: { servers: { big: { command: server.command, args: server.args, env: server.env } } },
        responses: [fauxAssistantMessage([fauxToolCall("codemode", { code: SCRIPT })], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("done")])],
      });
      await pi.session.prompt("Fetch the big answer in a script and check it.");

      const text = codemodeResult(pi);
      expect(text, text.slice(0, 2_000)).toMatch(/^Script completed/);
      const expected = numberedFiller(BYTES);
      expect(reportIn(text)).toEqual({
        type: "object",
        length: BYTES,
        fnv1a: fnv1a(expected),
        structured: { bytes: BYTES, fnv1a: fnv1a(expected) },
        isError: false,
      });
    } finally {
      server.cleanup();
    }
  });

  it("a codemode script's nested read gets pi's text untouched, though the default preset cuts a top-level read of it", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-codemode-read-");
    // Over the blobs threshold (16 KB), under pi's own read limit (50 KB).
    const file = numberedFiller(30_000);
    writeFileSync(join(work, "big.txt"), file);
    const script = `const t = await tools.read({ path: "big.txt" });\nconst checksum = ${FNV1A_SOURCE};\nreturn { type: typeof t, length: t.length, fnv1a: checksum(t), structured: null, isError: false };`;
    const pi = await scope.start({
      extensions: [hermeticDefaultPreset(work)],
      cwd: work,
      piMcp: { servers: {} },
      responses: [
        fauxAssistantMessage([fauxToolCall("codemode", { code: script })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxToolCall("read", { path: "big.txt" })], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("done")]),
      ],
    });
    await pi.session.prompt("Read big.txt in a script, then directly.");

    expect(reportIn(codemodeResult(pi))).toEqual({ type: "string", length: file.length, fnv1a: fnv1a(file), structured: null, isError: false });
    const direct = pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === "read") as {
      content: Array<{ text?: string }>;
    };
    expect(direct.content[0]!.text).toMatch(BLOB_MARKER_PATTERN); // the model's copy is cut: the stages ran there
  });

  it("a codemode script's nested call of a pi-governor tool gets the tool's whole answer, though the model's copy of a top-level call is cut", {
    timeout: 120_000,
  }, async () => {
    const work = scope.tempDir("pigov-codemode-governed-");
    const server = bigAnswerServer();
    try {
      const extension = createExtension(mcpPreset, {
        governorOptions: {
          cwd: work,
          agentDir: join(work, "agent"),
          layers: [
            {
              kind: "global",
              source: "e2e",
              data: {
                mcp: { servers: { big: { command: server.command, args: server.args, env: server.env } } },
                blobs: { dir: join(work, "blobs") },
                recall: { dbPath: join(work, "recall.db") },
                executionLog: { dbPath: join(work, "executions.db") },
              },
            },
          ],
        },
      });
      const answer = numberedFiller(100_000);
      const script = `const t = await tools.big_big_structured({ bytes: 100000 });\nconst checksum = ${FNV1A_SOURCE};\nreturn { type: typeof t, length: t.length, fnv1a: checksum(t), structured: null, isError: false };`;
      const pi = await scope.start({
        extensions: [extension],
        cwd: work,
        piMcp: { servers: {} },
        responses: [
          fauxAssistantMessage([fauxToolCall("codemode", { code: script })], { stopReason: "toolUse" }),
          fauxAssistantMessage([fauxToolCall("big_big_structured", { bytes: 100_000 })], { stopReason: "toolUse" }),
          fauxAssistantMessage([fauxText("done")]),
        ],
      });
      await pi.session.prompt("Fetch the big answer in a script, then directly.");

      const text = codemodeResult(pi);
      expect(reportIn(text), text.slice(0, 2_000)).toEqual({ type: "string", length: answer.length, fnv1a: fnv1a(answer), structured: null, isError: false });
      const direct = pi.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === "big_big_structured") as {
        content: Array<{ text?: string }>;
      };
      expect(direct.content[0]!.text).toMatch(BLOB_MARKER_PATTERN);
    } finally {
      server.cleanup();
    }
  });

  it("a codemode script's nested call of a pi-governor tool that fails rejects, with the governed error", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-codemode-governed-fail-");
    const server = faultyServer({ mode: "crash-mid-call", tool: "echo" });
    try {
      const extension = createExtension(mcpPreset, {
        governorOptions: {
          cwd: work,
          agentDir: join(work, "agent"),
          layers: [
            {
              kind: "global",
              source: "e2e",
              data: {
                mcp: { servers: { faulty: { command: server.command, args: server.args, env: server.env } } },
                retry: { enabled: false },
                blobs: { dir: join(work, "blobs") },
                recall: { dbPath: join(work, "recall.db") },
                executionLog: { dbPath: join(work, "executions.db") },
              },
            },
          ],
        },
      });
      const script = 'return await tools.faulty_echo({ message: "x" }).then(() => "resolved", (e) => "rejected: " + e.message);';
      const pi = await scope.start({
        extensions: [extension],
        cwd: work,
        piMcp: { servers: {} },
        responses: [fauxAssistantMessage([fauxToolCall("codemode", { code: script })], { stopReason: "toolUse" }), fauxAssistantMessage([fauxText("done")])],
      });
      await pi.session.prompt("Echo in a script.");
      expect(codemodeResult(pi)).toMatch(/rejected: /);
    } finally {
      server.cleanup();
    }
  });

  it("a top-level call of a direct MCP tool keeps its structuredContent when the stages annotate the result", { timeout: 120_000 }, async () => {
    const work = scope.tempDir("pigov-mcp-direct-");
    const server = bigAnswerServer();
    const ended: Array<{ toolName: string; result: { structuredContent?: unknown; details?: Record<string, unknown> } }> = [];
    try {
      const pi = await scope.start({
        extensions: [hermeticDefaultPreset(work), (api) => void api.on("tool_execution_end", (event) => void ended.push(event as never))],
        cwd: work,
        piMcp: { servers: { big: { command: server.command, args: server.args, env: server.env, exposure: "direct" } } },
        responses: [
          fauxAssistantMessage([fauxToolCall("mcp__big__big_structured", { bytes: 100_000 })], { stopReason: "toolUse" }),
          fauxAssistantMessage([fauxText("done")]),
        ],
      });
      await pi.session.prompt("Fetch the big answer.");

      const call = ended.find((e) => e.toolName === "mcp__big__big_structured");
      const expected = numberedFiller(100_000);
      expect(call?.result.details?.blobId, "a stage annotated the result").toMatch(/^[0-9a-f]{64}$/);
      expect(call?.result.structuredContent).toEqual({
        content: [{ type: "text", text: expected }],
        structuredContent: { bytes: 100_000, fnv1a: fnv1a(expected) },
      });
    } finally {
      server.cleanup();
    }
  });
});

describe.skipIf(piHasBuiltinMcp)(`pi's own MCP and codemode (pi ${piHost.version})`, () => {
  it.skip(`pi ${piHost.version} has no built-in MCP client or codemode tool (pi 1.x has them)`, () => {});
});
