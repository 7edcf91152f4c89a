/**
 * Shared setup of the kota end-to-end tests: the default preset (presets/kota) as a pi extension,
 * pointed at the KotaDB stand-in on a fixture repo, inside a real pi SDK session (faux model).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FauxResponseStep } from "@mariozechner/pi-ai";
import { createExtension } from "pi-governor/host";
import { deepMerge } from "../../core/config/merge.ts";
import type { Governor } from "pi-governor";
import { liveChildCount } from "../../lib/mcp/index.ts";
import { kotaPreset, leanPreset } from "../../presets/index.ts";
import { createFixtureRepo, FIXTURE_FILES, type FixtureRepo } from "../fixtures/kota-repo.ts";
import { standinKotaConfig } from "./kota-standin.ts";
import { startPiSession, type PiTestSession } from "./pi-session.ts";

/** A pi session running the default preset over the stand-in. */
export interface KotaE2e {
  pi: PiTestSession;
  repo: FixtureRepo;
  governor: Governor;
  work: string;
  dispose(): Promise<void>;
}

/** A ~`kb` KB TypeScript file whose last line is `// END-OF-<name>`, for read/prune tests. */
export function bigSource(name: string, kb: number): string {
  const lines: string[] = [`// generated filler: ${name}`];
  for (let i = 0; lines.join("\n").length < kb * 1024; i++) lines.push(`export const ${name}${i} = ${i} + ${i + 1}; // filler line ${i} for ${name}`);
  lines.push(`// END-OF-${name}`);
  return `${lines.join("\n")}\n`;
}

/** Starts pi with the default preset; `config` is merged over the stand-in config (a global config layer). */
export async function startKotaSession(
  options: {
    responses?: FauxResponseStep[];
    config?: Record<string, unknown>;
    files?: Record<string, string>;
    ui?: boolean;
    confirmAnswer?: boolean;
    defaultSystemPrompt?: boolean;
  } = {},
): Promise<KotaE2e> {
  const repo = createFixtureRepo({ ...FIXTURE_FILES, ...options.files });
  const work = mkdtempSync(join(tmpdir(), "kota-e2e-"));
  const data = deepMerge(
    { kota: standinKotaConfig({}), blobs: { dir: join(work, "blobs") }, autoContext: { timeoutMs: 30_000 } },
    options.config ?? {},
  ) as Record<string, unknown>;
  let governor: Governor | undefined;
  const extension = createExtension(kotaPreset, {
    presets: [leanPreset],
    onGovernor: (g) => (governor = g),
    governorOptions: { cwd: repo.root, agentDir: join(work, "agent"), layers: [{ kind: "global", source: "e2e", data }] },
  });
  const pi = await startPiSession({
    extensions: [extension],
    cwd: repo.root,
    ui: options.ui ?? true,
    confirmAnswer: options.confirmAnswer ?? true,
    defaultSystemPrompt: options.defaultSystemPrompt ?? false,
    ...(options.responses ? { responses: options.responses } : {}),
  });
  return {
    pi,
    repo,
    governor: governor!,
    work,
    async dispose() {
      try {
        await pi.dispose();
      } finally {
        repo.remove();
        rmSync(work, { recursive: true, force: true });
      }
    },
  };
}

/** Throws when an MCP child process is still alive (call after disposing every session). */
export function assertNoLiveChildren(): void {
  if (liveChildCount() !== 0) throw new Error(`${liveChildCount()} MCP child process(es) outlived their session`);
}

/**
 * Characters of one model request that the model reads: text blocks, thinking, tool-call names and
 * arguments. Message metadata (timestamps, usage, provider fields) is left out: providers do not send it.
 */
export function requestChars(messages: unknown[]): number {
  let chars = 0;
  for (const m of messages as Array<{ content?: unknown }>) {
    if (typeof m.content === "string") chars += m.content.length;
    else if (Array.isArray(m.content)) {
      for (const b of m.content as Array<{ type: string; text?: string; thinking?: string; name?: string; arguments?: unknown }>) {
        if (b.type === "text") chars += b.text?.length ?? 0;
        else if (b.type === "thinking") chars += b.thinking?.length ?? 0;
        else if (b.type === "toolCall") chars += (b.name?.length ?? 0) + JSON.stringify(b.arguments ?? {}).length;
      }
    }
  }
  return chars;
}

/** Tool results in a request, with their text. */
export function toolResultsIn(messages: unknown[]): Array<{ toolName: string; text: string }> {
  return (messages as Array<{ role: string; toolName?: string; content?: unknown }>)
    .filter((m) => m.role === "toolResult")
    .map((m) => ({
      toolName: String(m.toolName),
      text: Array.isArray(m.content)
        ? (m.content as Array<{ type: string; text?: string }>)
            .filter((b) => b.type === "text")
            .map((b) => b.text)
            .join("\n")
        : "",
    }));
}
