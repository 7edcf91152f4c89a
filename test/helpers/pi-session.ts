import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Namespace imports: the two pi lines export different names (see startPiSession); the types are
// the devDependency's (0.73), the values come from whichever pi vitest.hosts.config.ts resolves.
import * as piAi from "@mariozechner/pi-ai";
import type { FauxProviderRegistration, FauxResponseStep } from "@mariozechner/pi-ai";
import * as piSdk from "@mariozechner/pi-coding-agent";
import type { AgentSession, ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { afterEach } from "vitest";
import { isEarendilPi, piHasBuiltinMcp } from "./pi-host.ts";

/** A real pi AgentSession driven by pi-ai's faux provider, for end-to-end tests. */
export interface PiTestSession {
  session: AgentSession;
  faux: FauxProviderRegistration;
  cwd: string;
  agentDir: string;
  /** Every context (message list) the model was sent, in order. */
  contexts: unknown[][];
  /** What pi sent before the conversation in each request: its system prompt, its system messages (pi 0.74+) and the tool declarations. */
  preambles: PiRequestPreamble[];
  /** What the UI was asked to show (only with `ui: true`). */
  ui: RecordingUi;
  /** `/reload` the session (every extension is re-created); the faux model keeps answering. */
  reload(): Promise<void>;
  dispose(): Promise<void>;
}

export interface PiTestSessionOptions {
  extensions: ExtensionFactory[];
  responses?: FauxResponseStep[];
  cwd?: string;
  /** Persist the session to a JSONL file under the agent dir (default: in memory). */
  persist?: boolean;
  /** Tokens of recent history a manual compaction keeps (pi's `compaction.keepRecentTokens`); pi's default when unset. */
  keepRecentTokens?: number;
  /** Resume this session file (as `pi --session <file>` does) instead of starting a new session. */
  sessionFile?: string;
  /** Model context window in tokens. Default 200000. */
  contextWindow?: number;
  /** Tool allowlist; default: pi's built-ins plus every extension tool. */
  tools?: string[];
  /**
   * Give extensions a UI (ctx.hasUI true) that records notifications and status entries and answers
   * confirmations with `confirmAnswer`. Default: no UI, as in print mode.
   */
  ui?: boolean;
  /** Answer to every ctx.ui.confirm (with `ui: true`). Default true. */
  confirmAnswer?: boolean;
  /**
   * pi's own MCP client and `codemode` tool (pi 1.x only, see `piHasBuiltinMcp`): `servers` is
   * written as the `mcpServers` of `mcp.json` in the session's agent dir, and pi's MCP and codemode
   * extensions load before `extensions`, with `codemode` active from the start (pi's
   * `"defaultTools": ["+codemode"]`). PI_CODING_AGENT_DIR points at the
   * agent dir while the session lives (pi's MCP extension reads mcp.json from there).
   */
  piMcp?: { servers: Record<string, unknown> };
  /** pi's own default system prompt (with the tools' snippets and guidelines) instead of a one-line test prompt. Default false. */
  defaultSystemPrompt?: boolean;
  /** pi's automatic retry of transient provider errors (`retry` in pi's settings). Default: off. */
  retry?: { maxRetries: number; baseDelayMs: number };
  /** pi's automatic compaction (on a context overflow: compact, then retry the request). Default: off. */
  autoCompaction?: boolean;
}

/** The part of a request pi sends before the conversation. */
export interface PiRequestPreamble {
  systemPrompt: string;
  /** Text of the `system` messages (pi 0.74+ sends the prompt and tool notes this way). */
  systemMessages: string[];
  tools: Array<{ name: string; description: string; parameters: unknown }>;
}

/** A UI context that records what extensions show. */
export interface RecordingUi {
  notifications: Array<{ message: string; level: string }>;
  statuses: Map<string, string | undefined>;
  confirms: Array<{ title: string; message: string }>;
}

function recordingUiContext(ui: RecordingUi, confirmAnswer: boolean): object {
  const known: Record<string, unknown> = {
    notify: (message: string, level = "info") => ui.notifications.push({ message, level }),
    setStatus: (key: string, text: string | undefined) => ui.statuses.set(key, text),
    confirm: async (title: string, message: string) => {
      ui.confirms.push({ title, message });
      return confirmAnswer;
    },
    select: async () => undefined,
    input: async () => undefined,
    editor: async () => undefined,
    getEditorText: () => "",
    onTerminalInput: () => () => {},
  };
  // Everything else pi may call (widgets, titles, footers) is a no-op.
  return new Proxy(known, { get: (target, key) => (key in target ? target[key as string] : () => undefined) });
}

/**
 * The messages pi keeps in the session (its entries on the current branch), raw. On pi 0.87+ with
 * context edits, `session.messages` is the model-visible projection (placeholders in); the entries
 * keep what the tools returned.
 */
export function storedMessages(session: { sessionManager: { getBranch(): unknown[] } }): AgentSession["messages"] {
  type Message = AgentSession["messages"][number];
  return (session.sessionManager.getBranch() as Array<{ type: string; message?: Message }>).filter((e) => e.type === "message").map((e) => e.message!);
}

/**
 * Starts pi in-process: real AgentSession, real extension runtime, faux model. The agent dir is a
 * throwaway temp folder so the user's ~/.pi is never read or written.
 */
export async function startPiSession(options: PiTestSessionOptions): Promise<PiTestSession> {
  const agentDir = mkdtempSync(join(tmpdir(), "pigov-agent-"));
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), "pigov-cwd-"));
  const contexts: unknown[][] = [];
  const preambles: PiRequestPreamble[] = [];
  const model = await fauxModel(
    { models: [{ id: "faux-1", contextWindow: options.contextWindow ?? 200_000, maxTokens: 4096 }], tokensPerSecond: 1e9 },
    agentDir,
  );
  const { faux } = model;
  // pi 0.74+ sends the system prompt and tool declarations as `system` messages; tests look at what
  // the model reads of the conversation, as pi 0.73 sent it.
  const conversation = (messages: unknown[]) => (messages as Array<{ role?: string }>).filter((m) => m.role !== "system");
  const record = (context: { messages: unknown[]; systemPrompt?: string; tools?: unknown[] }) => {
    contexts.push(structuredClone(conversation(context.messages)));
    const text = (content: unknown) =>
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content.map((b: { text?: unknown }) => (typeof b?.text === "string" ? b.text : "")).join("\n")
          : "";
    // pi 1.x: the prompt as named sections and the tool declarations as `toolsAdded` of system messages.
    const system = (context.messages as Array<{ role?: string; content?: unknown; sections?: Record<string, unknown>; toolsAdded?: unknown[] }>).filter(
      (m) => m.role === "system",
    );
    const declared = (context.tools ?? system.flatMap((m) => m.toolsAdded ?? [])) as Array<{ name: string; description: string; parameters: unknown }>;
    preambles.push({
      systemPrompt: context.systemPrompt ?? "",
      systemMessages: system.map((m) => [text(m.content), ...Object.values(m.sections ?? {}).filter((v): v is string => typeof v === "string")].join("\n")),
      tools: structuredClone(declared.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
    });
  };
  const recordContext = (step: FauxResponseStep): FauxResponseStep =>
    typeof step === "function"
      ? (context, opts, state, model) => {
          record(context as never);
          return step(context, opts, state, model);
        }
      : (context) => {
          record(context as never);
          return step;
        };
  const originalSet = faux.setResponses.bind(faux);
  const originalAppend = faux.appendResponses.bind(faux);
  faux.setResponses = (steps) => originalSet(steps.map(recordContext));
  faux.appendResponses = (steps) => originalAppend(steps.map(recordContext));
  if (options.responses) faux.setResponses(options.responses);

  const piMcp = options.piMcp ? piMcpSetup(options.piMcp, agentDir) : undefined;
  const compaction = {
    enabled: options.autoCompaction ?? false,
    ...(options.keepRecentTokens !== undefined ? { keepRecentTokens: options.keepRecentTokens } : {}),
  };
  // With pi's MCP: codemode active from the start, as `"defaultTools": ["+codemode"]` makes it.
  const retry = options.retry ? { enabled: true, ...options.retry } : { enabled: false };
  const settingsManager = piSdk.SettingsManager.inMemory({ compaction, retry, ...(piMcp ? { defaultTools: ["+codemode"] } : {}) } as never);
  const resourceLoader = new piSdk.DefaultResourceLoader({
    cwd,
    agentDir,
    settingsManager,
    extensionFactories: [...(piMcp?.extensions ?? []), ...options.extensions],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    ...(options.defaultSystemPrompt ? {} : { systemPrompt: "You are a test assistant." }),
  });
  await resourceLoader.reload();
  const { session } = await piSdk.createAgentSession({
    cwd,
    agentDir,
    model: faux.getModel(),
    thinkingLevel: "off",
    ...(model.sessionOptions as object),
    resourceLoader,
    settingsManager,
    sessionManager: options.sessionFile
      ? piSdk.SessionManager.open(options.sessionFile, join(agentDir, "sessions"))
      : options.persist
        ? piSdk.SessionManager.create(cwd, join(agentDir, "sessions"))
        : piSdk.SessionManager.inMemory(cwd),
    ...(options.tools ? { tools: options.tools } : {}),
  });
  const ui: RecordingUi = { notifications: [], statuses: new Map(), confirms: [] };
  await session.bindExtensions(options.ui ? { uiContext: recordingUiContext(ui, options.confirmAnswer ?? true) as never } : {});
  return {
    session,
    faux,
    cwd,
    agentDir,
    contexts,
    preambles,
    ui,
    async reload() {
      await session.reload();
      model.afterReload();
    },
    async dispose() {
      try {
        // pi's runtime emits session_shutdown on quit; an SDK session must do it itself.
        await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
        session.dispose();
      } finally {
        model.unregister();
        piMcp?.restore();
        rmSync(agentDir, { recursive: true, force: true });
        if (!options.cwd) rmSync(cwd, { recursive: true, force: true });
      }
    },
  };
}

/** pi's MCP and codemode extensions over an `mcp.json` in `agentDir`; `restore` puts PI_CODING_AGENT_DIR back. */
function piMcpSetup(piMcp: NonNullable<PiTestSessionOptions["piMcp"]>, agentDir: string): { extensions: ExtensionFactory[]; restore(): void } {
  if (!piHasBuiltinMcp) throw new Error("This pi has no built-in MCP client or codemode tool (pi 1.x has them); skip the test with piHasBuiltinMcp.");
  writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: piMcp.servers }));
  const previous = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agentDir;
  // Names of pi 1.x; absent from the devDependency's types.
  const sdk = piSdk as unknown as { createMcpExtension(): ExtensionFactory; createCodemodeExtension(o?: { mode?: string }): ExtensionFactory };
  return {
    extensions: [sdk.createMcpExtension(), sdk.createCodemodeExtension({ mode: "on" })],
    restore() {
      if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = previous;
    },
  };
}

/** The faux model wired into pi the way each line expects. */
interface FauxModel {
  faux: FauxProviderRegistration;
  /** createAgentSession options that make pi use it. */
  sessionOptions: Record<string, unknown>;
  /** Puts the model back after `session.reload()` when pi dropped it. */
  afterReload(): void;
  unregister(): void;
}

type FauxOptions = Parameters<typeof piAi.registerFauxProvider>[0];

/**
 * pi 0.73: pi-ai's global API registry (`registerFauxProvider`) plus AuthStorage/ModelRegistry.
 * pi 0.74+: a provider object (`fauxProvider`) registered in the session's ModelRuntime, which
 * replaced AuthStorage and ModelRegistry in createAgentSession.
 */
async function fauxModel(options: FauxOptions, agentDir: string): Promise<FauxModel> {
  if (isEarendilPi) {
    // Names of pi-ai / pi-coding-agent 0.74+; absent from the devDependency's types.
    const ai = piAi as unknown as {
      fauxProvider(o: FauxOptions): FauxProviderRegistration & { provider: { id: string } };
      InMemoryCredentialStore: new () => unknown;
    };
    const sdk = piSdk as unknown as {
      ModelRuntime: {
        create(o: Record<string, unknown>): Promise<{
          registerNativeProvider(p: unknown): void;
          setRuntimeApiKey(id: string, key: string): Promise<void>;
          unregisterProvider(id: string): void;
        }>;
      };
    };
    const handle = ai.fauxProvider(options);
    const modelRuntime = await sdk.ModelRuntime.create({
      credentials: new ai.InMemoryCredentialStore(),
      authPath: join(agentDir, "auth.json"),
      modelsPath: null,
      allowModelNetwork: false,
      refreshOnCreate: false,
    });
    modelRuntime.registerNativeProvider(handle.provider);
    await modelRuntime.setRuntimeApiKey(handle.provider.id, "faux-key");
    const faux = Object.assign(handle, { unregister: () => modelRuntime.unregisterProvider(handle.provider.id) });
    return { faux, sessionOptions: { modelRuntime }, afterReload: () => {}, unregister: faux.unregister };
  }
  const faux = piAi.registerFauxProvider(options);
  // pi 0.73's auth API (its declarations are not the ones this repository type-checks against).
  const legacy = piSdk as unknown as {
    AuthStorage: { inMemory(): { setRuntimeApiKey(provider: string, key: string): void } };
    ModelRegistry: { inMemory(auth: unknown): unknown };
  };
  const authStorage = legacy.AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.getModel().provider, "faux-key");
  const modelRegistry = legacy.ModelRegistry.inMemory(authStorage);
  // `/reload` resets pi-ai's API registry, which holds the faux provider's stream functions.
  const apiProvider = piAi.getApiProvider(faux.getModel().api);
  return {
    faux,
    sessionOptions: { authStorage, modelRegistry },
    afterReload: () => {
      if (apiProvider && !piAi.getApiProvider(faux.getModel().api)) piAi.registerApiProvider(apiProvider as never);
    },
    unregister: () => faux.unregister(),
  };
}

/** A real pi AgentSessionRuntime (what pi's modes use for /new, /resume, /fork) with the faux model. */
export interface PiTestRuntime {
  runtime: piSdk.AgentSessionRuntime;
  faux: FauxProviderRegistration;
  agentDir: string;
  /** Where session files go (one folder for every cwd, so a switch can resume any of them). */
  sessionDir: string;
  ui: RecordingUi;
  dispose(): Promise<void>;
}

/**
 * Starts pi's session runtime in-process on `cwd` with a persisted session: every session
 * replacement (`runtime.switchSession`, `newSession`, `fork`) rebuilds pi's cwd-bound services for
 * the target session's cwd, reloads the extensions and binds them to the same recording UI again,
 * the way pi's interactive and RPC modes do.
 */
export async function startPiRuntime(options: { extensions: ExtensionFactory[]; cwd: string; responses?: FauxResponseStep[] }): Promise<PiTestRuntime> {
  const agentDir = mkdtempSync(join(tmpdir(), "pigov-agent-"));
  const sessionDir = join(agentDir, "sessions");
  const model = await fauxModel({ models: [{ id: "faux-1", contextWindow: 200_000, maxTokens: 4096 }], tokensPerSecond: 1e9 }, agentDir);
  const { faux } = model;
  if (options.responses) faux.setResponses(options.responses);
  const ui: RecordingUi = { notifications: [], statuses: new Map(), confirms: [] };
  const createRuntime: piSdk.CreateAgentSessionRuntimeFactory = async ({ cwd, sessionManager, sessionStartEvent }) => {
    const services = await piSdk.createAgentSessionServices({
      cwd,
      agentDir,
      ...(model.sessionOptions as object),
      settingsManager: piSdk.SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } }),
      resourceLoaderOptions: {
        extensionFactories: options.extensions,
        noSkills: true,
        noPromptTemplates: true,
        noThemes: true,
        noContextFiles: true,
        systemPrompt: "You are a test assistant.",
      },
    });
    const created = await piSdk.createAgentSessionFromServices({
      services,
      sessionManager,
      model: faux.getModel(),
      thinkingLevel: "off",
      ...(sessionStartEvent ? { sessionStartEvent } : {}),
    });
    return { ...created, services, diagnostics: services.diagnostics };
  };
  const runtime = await piSdk.createAgentSessionRuntime(createRuntime, {
    cwd: options.cwd,
    agentDir,
    sessionManager: piSdk.SessionManager.create(options.cwd, sessionDir),
  });
  const bind = (session: AgentSession) => session.bindExtensions({ uiContext: recordingUiContext(ui, true) as never });
  runtime.setRebindSession(bind);
  await bind(runtime.session);
  return {
    runtime,
    faux,
    agentDir,
    sessionDir,
    ui,
    async dispose() {
      try {
        await runtime.dispose();
      } finally {
        model.unregister();
        rmSync(agentDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Faux model steps for turns `from`..`to`: each turn reads `m<t>.ts` with pi's `read`, then answers
 * "m<t> read." (the workspace must hold those files).
 */
export function readTurnSteps(from: number, to: number): FauxResponseStep[] {
  const steps: FauxResponseStep[] = [];
  for (let t = from; t <= to; t++) {
    steps.push(piAi.fauxAssistantMessage([piAi.fauxToolCall("read", { path: `m${t}.ts` })], { stopReason: "toolUse" }));
    steps.push(piAi.fauxAssistantMessage([piAi.fauxText(`m${t} read.`)]));
  }
  return steps;
}

/** What {@link piTestScope} hands a test file. */
export interface PiTestScope {
  /** Starts a pi session that is disposed after the test. */
  start(options: PiTestSessionOptions): Promise<PiTestSession>;
  /** A new temp folder (under the OS temp dir, named `<prefix>XXXXXX`) removed after the test. */
  tempDir(prefix: string): string;
}

/**
 * Cleanup for an end-to-end test file: sessions and temp folders made through the scope are disposed
 * and removed after each test, the folders even when a dispose fails. Call once per describe block.
 */
export function piTestScope(): PiTestScope {
  const sessions: PiTestSession[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    try {
      for (const s of sessions.splice(0)) await s.dispose();
    } finally {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    }
  });
  return {
    async start(options) {
      const session = await startPiSession(options);
      sessions.push(session);
      return session;
    },
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
