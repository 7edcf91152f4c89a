/**
 * The `lean` and `mcp` presets inside a real pi session (SDK, faux model): lean cuts a large `read`
 * to an excerpt the model can page back with `blob_read`; mcp turns a real MCP server from the npm
 * registry (server-memory, over stdio) into governed `<server>_<tool>` tools. Runs on every pi line
 * the CI tests (see test/helpers/pi-host.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createExtension } from "pi-governor/host";
import { BLOB_MARKER_PATTERN } from "../../plugins/blobs/index.ts";
import { leanPreset, mcpPreset } from "../../presets/index.ts";
import { assertNoLiveChildren, bigSource, toolResultsIn } from "../helpers/kota-e2e.ts";
import { repoRoot } from "../helpers/pi-host.ts";
import { startPiSession, type PiTestSession } from "../helpers/pi-session.ts";

const MEMORY_SERVER = join(repoRoot, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

let work: string;
let pi: PiTestSession | undefined;
afterEach(async () => {
  await pi?.dispose();
  pi = undefined;
  rmSync(work, { recursive: true, force: true });
});

/** The governor's result status pi stored for a tool call. */
function storedStatus(session: PiTestSession, toolName: string): string | undefined {
  const result = session.session.messages.find((m) => m.role === "toolResult" && (m as { toolName?: string }).toolName === toolName) as
    | { details?: { governor?: { status?: string } } }
    | undefined;
  return result?.details?.governor?.status;
}

describe("presets in a real pi session", () => {
  it("lean: a large read reaches the model as an excerpt, and blob_read pages the rest back", async () => {
    work = mkdtempSync(join(tmpdir(), "pigov-lean-e2e-"));
    writeFileSync(join(work, "big.ts"), bigSource("big", 40));
    const blobRead: FauxResponseStep = (context) => {
      const marker = toolResultsIn(context.messages).at(-1)?.text.match(BLOB_MARKER_PATTERN);
      if (!marker) return fauxAssistantMessage([fauxText("no blob marker in the read result")]);
      return fauxAssistantMessage([fauxToolCall("blob_read", { blobId: marker[1]!, grep: "const big300 " })], { stopReason: "toolUse" });
    };
    const extension = createExtension(leanPreset, {
      governorOptions: { cwd: work, layers: [{ kind: "global", source: "e2e", data: { blobs: { dir: join(work, "blobs") } } }] },
    });
    pi = await startPiSession({
      extensions: [extension],
      cwd: work,
      responses: [
        fauxAssistantMessage([fauxToolCall("read", { path: "big.ts" })], { stopReason: "toolUse" }),
        blobRead,
        fauxAssistantMessage([fauxText("found it")]),
      ],
    });
    await pi.session.prompt("What is big300 in big.ts?");

    const [read, paged] = toolResultsIn(pi.contexts.at(-1)!);
    expect(read?.toolName).toBe("read");
    expect(read!.text).toMatch(BLOB_MARKER_PATTERN);
    expect(read!.text.length).toBeLessThan(8_192); // the 40 KB file became an excerpt
    expect(read!.text).not.toContain("const big300 "); // a line from the middle of the file
    expect(paged?.toolName).toBe("blob_read");
    expect(paged!.text).toContain("const big300 = 300 + 301");
  });

  it("mcp: a real MCP server's tools are governed <server>_<tool> tools, and its process ends with the session", async () => {
    work = mkdtempSync(join(tmpdir(), "pigov-mcp-e2e-"));
    const servers = { memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(work, "memory.jsonl") } } };
    const extension = createExtension(mcpPreset, {
      governorOptions: {
        cwd: work,
        layers: [{ kind: "global", source: "e2e", data: { mcp: { servers }, blobs: { dir: join(work, "blobs") }, executionLog: { enabled: false } } }],
      },
    });
    pi = await startPiSession({
      extensions: [extension],
      cwd: work,
      responses: [
        fauxAssistantMessage(
          [fauxToolCall("memory_create_entities", { entities: [{ name: "pi-governor", entityType: "project", observations: ["runs on two pi lines"] }] })],
          { stopReason: "toolUse" },
        ),
        fauxAssistantMessage([fauxToolCall("memory_read_graph", {})], { stopReason: "toolUse" }),
        fauxAssistantMessage([fauxText("stored and read back")]),
      ],
    });
    expect(pi.session.getActiveToolNames()).toEqual(expect.arrayContaining(["memory_create_entities", "memory_read_graph"]));
    await pi.session.prompt("Remember the project, then read the graph.");

    const results = toolResultsIn(pi.contexts.at(-1)!);
    expect(results.map((r) => r.toolName)).toEqual(["memory_create_entities", "memory_read_graph"]);
    expect(results[1]!.text).toContain("runs on two pi lines");
    expect(storedStatus(pi, "memory_read_graph")).toBe("SUCCESS");
    await pi.dispose();
    pi = undefined;
    assertNoLiveChildren();
  });
});
