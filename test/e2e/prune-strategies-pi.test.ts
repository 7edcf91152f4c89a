/**
 * The meaning-based pruning strategies in a real pi session (SDK in-process, faux model, pi's own
 * read/edit/write tools on real files): a repeated read, a stale read after an edit, a large
 * write's arguments and a failed edit's arguments, as the model sees them once the boundary passed.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall, type FauxResponseStep } from "@mariozechner/pi-ai";
import { describe, expect, it, vi } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { blobs } from "../../plugins/blobs/index.ts";
import { prune } from "../../plugins/prune/index.ts";
import { piTestScope, storedMessages } from "../helpers/pi-session.ts";

const code = (name: string, chars: number) => {
  const lines: string[] = [];
  for (let i = 0; lines.join("\n").length < chars; i++) lines.push(`export const ${name}${i} = compute(${i}); // ${name} line ${i}`);
  return lines.join("\n");
};

type Block = { type: string; id?: string; name?: string; arguments?: Record<string, unknown>; text?: string };
const blocksOf = (m: AgentMessageLike) => (Array.isArray(m.content) ? (m.content as Block[]) : []);
const textOf = (m: AgentMessageLike | undefined) =>
  m
    ? blocksOf(m)
        .map((b) => b.text ?? "")
        .join("")
    : "";
const resultOf = (context: AgentMessageLike[], id: string) => context.find((m) => m.role === "toolResult" && (m as { toolCallId?: string }).toolCallId === id);
const callOf = (context: AgentMessageLike[], id: string) =>
  context.flatMap((m) => (m.role === "assistant" ? blocksOf(m) : [])).find((b) => b.type === "toolCall" && b.id === id);

describe("context round 2 strategies with the real pi SDK", () => {
  const scope = piTestScope();

  it("shows a repeated read, a stale read, a large write's arguments and a failed call's arguments as placeholders with a way back", async () => {
    const cwd = scope.tempDir("pigov-strategies-");
    const blobDir = scope.tempDir("pigov-strategies-blobs-");
    writeFileSync(join(cwd, "a.ts"), code("alpha", 6000));
    writeFileSync(join(cwd, "b.ts"), code("beta", 6000));
    const written = code("gamma", 20_000);
    const missing = `${"const notInTheFile = 1;\n".repeat(150)}`;

    const turn = (calls: ReturnType<typeof fauxToolCall>[], answer: string): FauxResponseStep[] => [
      fauxAssistantMessage([fauxText("Working."), ...calls], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxText(answer)]),
    ];
    const responses: FauxResponseStep[] = [
      ...turn([fauxToolCall("read", { path: "a.ts" }, { id: "read_a_1" })], "a.ts read."),
      ...turn([fauxToolCall("read", { path: "a.ts" }, { id: "read_a_2" })], "a.ts read again."),
      fauxAssistantMessage([fauxText("Reading b."), fauxToolCall("read", { path: "b.ts" }, { id: "read_b" })], { stopReason: "toolUse" }),
      ...turn(
        [fauxToolCall("edit", { path: "b.ts", oldText: "export const beta0 = compute(0);", newText: "export const beta0 = compute(100);" }, { id: "edit_b" })],
        "b.ts edited.",
      ),
      ...turn([fauxToolCall("edit", { path: "a.ts", oldText: missing, newText: "x" }, { id: "edit_fail" })], "That edit failed."),
      ...turn([fauxToolCall("write", { path: "c.ts", content: written }, { id: "write_c" })], "c.ts written."),
      ...turn([], "Filler turn one."),
      ...turn([], "Filler turn two."),
    ];

    const preset = definePreset({
      name: "e2e-strategies",
      description: "",
      plugins: () => [
        blobs({ dir: blobDir! }),
        prune({ keepRecentTurns: 1, cacheAware: false, minStepTokens: 8000, forceStepPercent: 1000, adaptive: false, failedArgsAfterTurns: 1 }),
      ],
    });
    const pi = await scope.start({
      extensions: [createExtension(preset, { governorOptions: { layers: [], cwd } })],
      responses,
      cwd,
      tools: ["read", "edit", "write"],
      persist: true,
    });
    for (const prompt of ["Read a.ts", "Read a.ts again", "Fix b.ts", "Edit a.ts", "Write c.ts", "One", "Two"]) await pi.session.prompt(prompt);

    // The tools really ran.
    expect(readFileSync(join(cwd, "c.ts"), "utf8")).toBe(written);
    expect(readFileSync(join(cwd, "b.ts"), "utf8")).toContain("compute(100)");
    const stored = storedMessages(pi.session) as unknown as AgentMessageLike[];
    expect((resultOf(stored, "edit_fail") as { isError?: boolean }).isError).toBe(true);

    // One boundary step covers turns 1-5 once they free 8,000 tokens (each message is judged when the
    // boundary passes it, by what came before the boundary).
    const last = pi.contexts.at(-1) as AgentMessageLike[];
    // 1. The repeated read: the older result names the newer call.
    expect(textOf(resultOf(last, "read_a_1"))).toMatch(/^\(Pruned\) read\(path="a\.ts"\).*read_a_2/);
    // 2. The stale read: b.ts changed after it was read.
    expect(textOf(resultOf(last, "read_b"))).toMatch(/^\(Pruned\) read\(path="b\.ts"\).*[Ss]tale.*edit_b/);
    // 3. The large write: the call keeps its id and name, its arguments still parse, the content is an
    //    excerpt whose marker names the blob holding the full arguments.
    const write = callOf(last, "write_c")!;
    expect(write.name).toBe("write");
    const content = String(write.arguments!.content);
    expect(content.length).toBeLessThan(2000);
    expect(write.arguments!.path).toBe("c.ts");
    const blobId = /"blobId":"([0-9a-f]{12})"/.exec(content)?.[1];
    expect(blobId).toBeDefined();
    // Written in the background, once per id; the marker names the id by its first 12 hex digits.
    const blobFile = await vi.waitFor(() => {
      const found = existsSync(blobDir!)
        ? readdirSync(blobDir!)
            .filter((f) => f.startsWith(blobId!) && /\.(json|txt)$/.test(f))
            .map((f) => join(blobDir!, f))[0]
        : undefined;
      expect(found).toBeDefined();
      return found!;
    });
    expect(JSON.parse(readFileSync(blobFile!, "utf8")).content).toBe(written);
    // 4. The failed edit: its long oldText is cut, the error text stays.
    const failed = callOf(last, "edit_fail")!;
    expect(String(failed.arguments!.oldText).length).toBeLessThan(missing.length / 2);
    expect(String(failed.arguments!.oldText)).toMatch(/failed/);
    expect(textOf(resultOf(last, "edit_fail"))).toBe(textOf(resultOf(stored, "edit_fail")));

    // Every call still has its result, in order (valid for every provider).
    for (const m of last) for (const b of m.role === "assistant" ? blocksOf(m) : []) if (b.type === "toolCall") expect(resultOf(last, b.id!)).toBeDefined();
    // The session file keeps everything: pruning is request-only.
    expect(String(callOf(stored, "write_c")!.arguments!.content)).toBe(written);
  }, 120_000);
});
