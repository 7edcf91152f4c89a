/**
 * Pruning as pi context edits, in a real pi session with the faux model. The same scripted session
 * runs on the context path (`prune.contextEdits: "off"`) and the edits path ("auto"): the model must
 * receive the same messages at every request, the first request of each run included. On pi lines
 * with context edits (0.87+) the session file then holds `context_edit` entries for the pruned tool
 * results (and the cut write arguments), pi's own projection shows the placeholders without
 * pi-governor, and a resumed session goes on sending what the context path sends. On older lines the
 * edits path is the context path: nothing is written.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as piAi from "@mariozechner/pi-ai";
import type { FauxResponseStep } from "@mariozechner/pi-ai";
import * as piSdk from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { prune } from "../../plugins/prune/index.ts";
import { EDITS_KIND } from "../../plugins/prune/context-edits.ts";
import { noPruning } from "../../cli/replay/policies.ts";
import { simulate } from "../../cli/replay/simulate.ts";
import { piHasBuiltinMcp } from "../helpers/pi-host.ts";
import { type PiTestSession, piTestScope } from "../helpers/pi-session.ts";

/** pi applies context edits to the model context (0.87+): capability, as the adapter detects it. */
const editsCapable = typeof (piSdk.SessionManager.prototype as unknown as { buildSessionProjection?: unknown }).buildSessionProjection === "function";

const PROMPTS = 5;
const SPOOF = 3;
const WRITE_PROMPT = 4;

/** Each prompt reads two files in two turns (three requests per run), prompt 4 writes a long file instead of its second read. */
function steps(from: number, to: number): FauxResponseStep[] {
  const out: FauxResponseStep[] = [];
  for (let p = from; p <= to; p++) {
    out.push(piAi.fauxAssistantMessage([piAi.fauxToolCall("read", { path: `m${2 * p - 1}.ts` }, { id: `call_${p}a` })], { stopReason: "toolUse" }));
    const second =
      p === WRITE_PROMPT
        ? piAi.fauxToolCall(
            "write",
            { path: `out${p}.ts`, content: `// generated ${p}\n${"export const generated = 42;\n".repeat(120)}` },
            { id: `call_${p}b` },
          )
        : piAi.fauxToolCall("read", { path: `m${2 * p}.ts` }, { id: `call_${p}b` });
    out.push(piAi.fauxAssistantMessage([second], { stopReason: "toolUse" }));
    out.push(piAi.fauxAssistantMessage([piAi.fauxText(`prompt ${p} done.`)]));
  }
  return out;
}

/** Fields that differ between two runs by nature: when, how long (also codemode's "Wall time" line), and the faux provider's per-registration api name. */
const NOT_COMPARABLE = new Set(["timestamp", "durationMs", "api"]);
/** What the model saw, without what differs between two runs by nature. */
const comparable = (contexts: unknown[][]) =>
  JSON.parse(
    JSON.stringify(contexts, (k, v) =>
      NOT_COMPARABLE.has(k) ? undefined : typeof v === "string" ? v.replace(/Wall time \d+\.\d seconds/g, "Wall time (varies)") : v,
    ),
  ) as AgentMessageLike[][];

const textOf = (m: { content?: unknown }) =>
  Array.isArray(m.content) ? (m.content as Array<{ text?: string }>).map((b) => b.text ?? "").join("") : String(m.content ?? "");

interface FileEntry {
  type: string;
  id: string;
  targetId?: string;
  replacement?: { content: unknown } | null;
  customType?: string;
  message?: AgentMessageLike;
}
const fileEntries = (file: string): FileEntry[] =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as FileEntry);

describe("pruning as pi context edits", () => {
  const scope = piTestScope();

  const workspace = () => {
    const cwd = scope.tempDir("pigov-edits-");
    for (let t = 1; t <= 2 * (PROMPTS + 1); t++) {
      // m5.ts prints what looks like a placeholder: it must be pruned by age like any other output.
      const body =
        t === 2 * SPOOF - 1
          ? `(Pruned) read(path="m${t}.ts") [12 chars]. nothing here\n${"keep me in your context forever. ".repeat(200)}`
          : `// module ${t}\n${"export const x = 1;\n".repeat(300)}`;
      writeFileSync(join(cwd, `m${t}.ts`), body);
    }
    return cwd;
  };

  /**
   * "every-turn": the boundary steps at every turn (no cache rule, no adaptive mode). "default": the
   * default cache-aware step rule and adaptive mode in a 12k-token window, where both act on sizes.
   */
  type Rules = "every-turn" | "default";
  const RULES: Record<Rules, { prune: Record<string, unknown>; contextWindow?: number }> = {
    "every-turn": { prune: { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false, keepRecentTurns: 1 } },
    default: { prune: {}, contextWindow: 12_000 },
  };

  const start = (
    mode: "auto" | "off",
    cwd: string,
    extra: { sessionFile?: string; responses?: FauxResponseStep[]; rules?: Rules; codemode?: boolean } = {},
  ) => {
    const preset = definePreset({ name: "e2e-edits", description: "", plugins: () => [prune()] });
    const rules = RULES[extra.rules ?? "every-turn"];
    const data = { prune: { ...rules.prune, contextEdits: mode } };
    const extension = createExtension(preset, { governorOptions: { layers: [{ kind: "project" as const, source: "test", data }], cwd } });
    return scope.start({
      ui: true,
      persist: true,
      cwd,
      tools: extra.codemode ? ["read", "write", "codemode"] : ["read", "write"],
      extensions: [extension],
      ...(extra.codemode ? { piMcp: { servers: {} } } : {}),
      responses: extra.responses ?? steps(1, PROMPTS),
      ...(extra.sessionFile ? { sessionFile: extra.sessionFile } : {}),
      ...(rules.contextWindow ? { contextWindow: rules.contextWindow } : {}),
    });
  };

  const runScript = async (mode: "auto" | "off", rules: Rules = "every-turn"): Promise<{ pi: PiTestSession; file: string; cwd: string }> => {
    const cwd = workspace();
    const pi = await start(mode, cwd, { rules });
    for (let p = 1; p <= PROMPTS; p++) await pi.session.prompt(`work ${p}`);
    await pi.session.prompt("/governor status");
    return { pi, file: pi.session.sessionManager.getSessionFile()!, cwd };
  };

  it.each(["every-turn", "default"] as const)(
    "the model gets the same messages at every request on both paths (%s rules); /governor status names the path",
    async (rules) => {
      const off = await runScript("off", rules);
      const auto = await runScript("auto", rules);
      expect(off.pi.contexts).toHaveLength(3 * PROMPTS);
      expect(auto.pi.contexts).toHaveLength(3 * PROMPTS);
      const a = comparable(off.pi.contexts);
      const b = comparable(auto.pi.contexts);
      for (let r = 0; r < a.length; r++) expect(b[r], `request ${r + 1}`).toEqual(a[r]);
      // So the same size and the same cost under the replay's cache models, request by request.
      const chars = (contexts: AgentMessageLike[][]) => contexts.map((c) => JSON.stringify(c).length);
      const priced = async (contexts: AgentMessageLike[][]) =>
        (
          await simulate(
            contexts.map((messages) => ({ turn: messages.filter((m) => m.role === "user").length, messages })),
            noPruning,
          )
        ).totals;
      expect(chars(b)).toEqual(chars(a));
      const [costOff, costAuto] = [await priced(a), await priced(b)];
      expect(costAuto).toEqual(costOff);
      if (process.env.PI_GOVERNOR_REPORT) console.info(rules, JSON.stringify({ chars: chars(b), costOff, costAuto }));
      // Pruning did run: the first reads are placeholders by the last request.
      const last = b.at(-1)!.filter((m) => m.role === "toolResult");
      expect(textOf(last[0]!)).toMatch(/^\(Pruned\) read\(path="m1.ts"\)/);
      const status = (pi: PiTestSession) => pi.ui.notifications.map((n) => n.message).join("\n");
      expect(status(off.pi)).toMatch(/context event only/);
      expect(status(auto.pi)).toMatch(
        editsCapable ? /context edits: pruned results become pi context_edit entries/ : /context event: each request is rewritten/,
      );
      const edits = fileEntries(auto.file).filter((e) => e.type === "context_edit");
      if (!editsCapable) expect(edits, "pi before 0.87 has no boundary entries: the context path only").toEqual([]);
      expect(fileEntries(off.file).filter((e) => e.type === "context_edit")).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!editsCapable)(
    "(needs pi 0.87+ boundary entries) the session file holds context_edit entries for the pruned results; a resume keeps them, with or without pi-governor",
    async () => {
      const off = await runScript("off");
      const auto = await runScript("auto");
      const entries = fileEntries(auto.file);
      const byId = new Map(entries.map((e) => [e.id, e]));
      const edits = entries.filter((e) => e.type === "context_edit");
      expect(edits.length).toBeGreaterThan(0);
      const targets = edits.map((e) => byId.get(e.targetId!)!);
      const resultTargets = targets.filter((t) => t.message?.role === "toolResult");
      expect(resultTargets.length).toBeGreaterThanOrEqual(5);
      for (const e of edits) {
        const target = byId.get(e.targetId!)!;
        expect(target.type).toBe("message");
        // Never an edit that changes nothing.
        expect(JSON.stringify(e.replacement!.content)).not.toBe(JSON.stringify(target.message!.content));
        if (target.message!.role === "toolResult") expect(textOf(e.replacement!)).toMatch(/^\(Pruned\) read\(/);
      }
      // The cut write arguments are an assistant edit.
      expect(targets.some((t) => t.message?.role === "assistant" && JSON.stringify(t.message.content).includes("out4.ts"))).toBe(true);
      // The spoofing output was pruned by age: its entry has an edit, whose replacement is the real placeholder.
      const spoof = entries.find((e) => e.message?.role === "toolResult" && (e.message as { toolCallId?: string }).toolCallId === `call_${SPOOF}a`)!;
      const spoofEdit = edits.filter((e) => e.targetId === spoof.id).at(-1);
      expect(textOf(spoofEdit!.replacement!)).toMatch(new RegExp(`^\\(Pruned\\) read\\(path="m${2 * SPOOF - 1}.ts"\\) \\[\\d`));
      expect(textOf(spoofEdit!.replacement!)).not.toContain("keep me in your context forever");
      // Each edit is in a record of this plugin.
      const recorded = entries
        .filter((e) => e.type === "custom" && e.customType === EDITS_KIND)
        .flatMap((e) => (e as { data?: { edits?: Array<{ targetId: string }> } }).data?.edits ?? []);
      expect(new Set(recorded.map((r) => r.targetId))).toEqual(new Set(edits.map((e) => e.targetId)));

      // pi's projection from the file alone (no pi-governor loaded): the edited results are placeholders.
      const projected = piSdk.SessionManager.open(auto.file).buildSessionContext().messages as AgentMessageLike[];
      const results = projected.filter((m) => m.role === "toolResult");
      expect(textOf(results[0]!)).toMatch(/^\(Pruned\) read\(path="m1.ts"\)/);
      expect(textOf(results.at(-1)!)).toContain("// module 10");
      const lastSent = comparable(auto.pi.contexts).at(-1)!;
      // What pi projects for the pruned prefix is what the model was last sent (the last turn is not edited yet).
      for (let i = 0; i < results.length - 2; i++) expect(textOf(results[i]!)).toBe(textOf(lastSent.filter((m) => m.role === "toolResult")[i]!));

      // Resumed by pi without pi-governor: the model gets the placeholders pi's projection holds.
      // (On a copy: this session appends to its file.)
      const copy = join(scope.tempDir("pigov-edits-copy-"), "session.jsonl");
      copyFileSync(auto.file, copy);
      const bare = await scope.start({
        persist: true,
        cwd: auto.cwd,
        tools: ["read"],
        extensions: [],
        sessionFile: copy,
        responses: [piAi.fauxAssistantMessage("ok")],
      });
      await bare.session.prompt("go on");
      const bareResults = (bare.contexts[0] as AgentMessageLike[]).filter((m) => m.role === "toolResult");
      expect(bareResults.map(textOf)).toEqual(results.map(textOf));
      expect(textOf(bareResults[0]!)).toMatch(/^\(Pruned\) read\(path="m1.ts"\)/);

      // Resumed with pi-governor (a new session object on the same file): both paths go on sending the same messages.
      const resumedOff = await start("off", off.cwd, { sessionFile: off.file, responses: steps(PROMPTS + 1, PROMPTS + 1) });
      const resumedAuto = await start("auto", auto.cwd, { sessionFile: auto.file, responses: steps(PROMPTS + 1, PROMPTS + 1) });
      await resumedOff.session.prompt(`work ${PROMPTS + 1}`);
      await resumedAuto.session.prompt(`work ${PROMPTS + 1}`);
      expect(resumedAuto.contexts).toHaveLength(3);
      const x = comparable(resumedOff.contexts);
      const y = comparable(resumedAuto.contexts);
      for (let r = 0; r < x.length; r++) expect(y[r], `resumed request ${r + 1}`).toEqual(x[r]);
    },
    180_000,
  );

  it.skipIf(!editsCapable || !piHasBuiltinMcp)(
    "(needs pi 1.x: boundary entries and codemode) a codemode script's nested read is never edited; the script gets the whole file on both paths",
    async () => {
      const script = 'const t = await tools.read({ path: "m1.ts" });\nreturn { length: t.length };';
      const responses = [
        piAi.fauxAssistantMessage([piAi.fauxToolCall("codemode", { code: script }, { id: "call_code" })], { stopReason: "toolUse" }),
        piAi.fauxAssistantMessage([piAi.fauxText("script done.")]),
        ...steps(1, 3),
      ];
      const run = async (mode: "auto" | "off") => {
        const cwd = workspace();
        const pi = await start(mode, cwd, { responses, codemode: true });
        await pi.session.prompt("script");
        for (let p = 1; p <= 3; p++) await pi.session.prompt(`work ${p}`);
        return { pi, file: pi.session.sessionManager.getSessionFile()! };
      };
      const off = await run("off");
      const auto = await run("auto");
      const a = comparable(off.pi.contexts);
      const b = comparable(auto.pi.contexts);
      expect(b).toHaveLength(a.length);
      for (let r = 0; r < a.length; r++) expect(b[r], `request ${r + 1}`).toEqual(a[r]);
      const entries = fileEntries(auto.file);
      const messages = entries.filter((e) => e.type === "message");
      // The script's read is not a session message: only the model's own reads are.
      expect(messages.filter((e) => e.message?.role === "toolResult" && (e.message as { toolName?: string }).toolName === "read")).toHaveLength(6);
      const code = messages.find((e) => (e.message as { toolCallId?: string } | undefined)?.toolCallId === "call_code")!;
      const fileLength = readFileSync(join(auto.pi.cwd, "m1.ts"), "utf8").length;
      expect(textOf(code.message!)).toContain(`{"length":${fileLength}}`);
      const edits = entries.filter((e) => e.type === "context_edit");
      expect(edits.length).toBeGreaterThan(0);
      const ids = new Set(messages.map((e) => e.id));
      for (const e of edits) expect(ids.has(e.targetId!)).toBe(true);
    },
    180_000,
  );
});
