/**
 * A real governor with the fold and prune plugins (and optionally blobs) on a memory session store, plus
 * builders for pi-shaped message lists and a helper that makes a real `context_fold` call the way pi
 * does (the tool result message is built from the tool's own observation).
 */
import { type AgentMessageLike, definePreset, type LogRecord, type SessionStore, type UiBridge } from "pi-governor";
import { createGovernor, observationDetails } from "pi-governor/host";
import { memorySessionStore } from "../../core/services.ts";
import { blobs } from "../../plugins/blobs/index.ts";
import { fold } from "../../plugins/fold/index.ts";
import { prune } from "../../plugins/prune/index.ts";

export const SESSION = "s1";

/** A user message starting turn `t`. */
export const user = (t: number, text = `q${t}`): AgentMessageLike => ({ role: "user", content: [{ type: "text", text }], timestamp: t * 100 });

/** One finished turn: a question, one tool call `c<t>` and its result, an answer. */
export function turn(
  t: number,
  options: { tool?: string; args?: Record<string, unknown>; text?: string; details?: Record<string, unknown> } = {},
): AgentMessageLike[] {
  const tool = options.tool ?? "read";
  return [
    user(t),
    {
      role: "assistant",
      content: [
        { type: "text", text: `reading ${t}` },
        { type: "toolCall", id: `c${t}`, name: tool, arguments: options.args ?? { path: `f${t}.ts` } },
      ],
      timestamp: t * 100 + 1,
    },
    {
      role: "toolResult",
      toolCallId: `c${t}`,
      toolName: tool,
      content: [{ type: "text", text: options.text ?? `file ${t}\n${"x".repeat(2000)}` }],
      isError: false,
      ...(options.details ? { details: options.details } : {}),
      timestamp: t * 100 + 2,
    },
    { role: "assistant", content: [{ type: "text", text: `done ${t}` }], timestamp: t * 100 + 3 },
  ];
}

/** Turns 1..n. */
export const turns = (n: number, from = 1): AgentMessageLike[] => Array.from({ length: n }, (_, i) => turn(from + i)).flat();

export interface Harness {
  store: SessionStore;
  notes: Array<{ message: string; level: string | undefined }>;
  ui: UiBridge;
  readonly logs: readonly LogRecord[];
  /** Runs the context hook as pi does. */
  context(messages: AgentMessageLike[], contextWindow?: number): Promise<AgentMessageLike[]>;
  /**
   * The model's fold in the current turn: an assistant message with a context_fold call `id`, run
   * through the real tool, and its tool result message. Returns both messages and the observation.
   */
  fold(
    id: string,
    args: Record<string, unknown>,
    t?: number,
  ): Promise<{ messages: AgentMessageLike[]; ok: boolean; text: string; details: Record<string, unknown> }>;
  command(path: string, args: string): Promise<string>;
  toolNames(): string[];
}

/**
 * Builds a governor; `prune` options from code, `fold` the fold section (`{ enabled: false }`: prune
 * alone; `withoutFold`: no fold plugin in the preset at all), `blobsDir` adds the blobs plugin with that dir.
 */
export async function harness(
  pruneOptions: Record<string, unknown> = {},
  options: { blobsDir?: string; store?: SessionStore; cwd?: string; commandRoot?: string; fold?: Record<string, unknown>; withoutFold?: boolean } = {},
): Promise<Harness> {
  const preset = definePreset({
    name: "fold-test",
    description: "",
    ...(options.commandRoot ? { commandRoot: options.commandRoot } : {}),
    plugins: () => [...(options.blobsDir ? [blobs()] : []), ...(options.withoutFold ? [] : [fold()]), prune()],
  });
  const layers = [
    {
      kind: "global" as const,
      source: "test",
      data: {
        prune: { adaptive: false, cacheAware: false, minStepTokens: 0, minStepPercent: 0, ...pruneOptions },
        ...(options.fold ? { fold: options.fold } : {}),
        ...(options.blobsDir ? { blobs: { dir: options.blobsDir } } : {}),
      },
    },
  ];
  const g = await createGovernor({ preset, cwd: options.cwd ?? "/work/project", agentDir: "/nonexistent", env: {}, layers });
  if (g.problems().length) throw new Error(g.problems().join("\n"));
  const store = options.store ?? memorySessionStore();
  const notes: Harness["notes"] = [];
  const ui: UiBridge = { hasUI: true, notify: (message, level) => void notes.push({ message, level }), setStatus: () => {}, confirm: async () => false };
  g.attachSession(SESSION, ui, store);
  return {
    store,
    notes,
    ui,
    get logs() {
      return g.logs;
    },
    context: (messages, contextWindow = 200_000) =>
      g.pipeline.hooks.context.run(messages, { sessionId: SESSION, usage: { tokens: null, contextWindow, percent: null } }),
    async fold(id, args, t = 99) {
      const obs = await g.pipeline.callTool("context_fold", args, { toolCallId: id, sessionId: SESSION });
      const text = obs.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      const ok = obs.status === "SUCCESS";
      const details = observationDetails(obs);
      const messages: AgentMessageLike[] = [
        { role: "assistant", content: [{ type: "toolCall", id, name: "context_fold", arguments: args }], timestamp: t * 100 + 50 },
        { role: "toolResult", toolCallId: id, toolName: "context_fold", content: obs.content, details, isError: !ok, timestamp: t * 100 + 51 },
      ];
      return { messages, ok, text, details };
    },
    async command(path, args) {
      await g.pipeline.runCommand(path, args, { ui, cwd: "/work/project", sessionId: SESSION });
      return notes.at(-1)?.message ?? "";
    },
    toolNames: () => [...g.pipeline.tools.keys()],
  };
}

/** Text of a message as the model reads it (custom messages become user text). */
export function textOf(m: AgentMessageLike): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === "string") return c;
  return Array.isArray(c) ? (c as Array<{ type?: string; text?: string }>).map((b) => b.text ?? "").join("\n") : "";
}

/** Every toolCall id has exactly one toolResult after it, and every toolResult has its call before it. */
export function pairsValid(messages: readonly AgentMessageLike[]): boolean {
  const open = new Set<string>();
  const done = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type?: string; id?: string }>) if (b.type === "toolCall") open.add(b.id!);
    } else if (m.role === "toolResult") {
      const id = String((m as { toolCallId?: unknown }).toolCallId);
      if (!open.has(id) || done.has(id)) return false;
      done.add(id);
    }
  }
  return [...open].every((id) => done.has(id));
}
