/**
 * A throwaway pi workspace for an end-to-end test: a project folder, pi's agent dir and a HOME, all
 * under one temporary folder the test removes (`rmSync(root, { recursive: true, force: true })`).
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folders of a {@link piWorkspace}. */
export interface PiWorkspace {
  /** The temporary folder that holds the others. */
  readonly root: string;
  /** The repository pi runs in (`cwd`). */
  readonly project: string;
  /** pi's agent dir (`PI_CODING_AGENT_DIR`): the user's global config goes here. */
  readonly agentDir: string;
  /** The HOME pi runs with. */
  readonly home: string;
}

/** Makes a workspace under the system's temporary folder; `prefix` names it (e.g. `pigov-stop-`). */
export function piWorkspace(prefix: string): PiWorkspace {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const ws = { root, project: join(root, "repo"), agentDir: join(root, "agent"), home: join(root, "home") };
  for (const dir of [ws.project, ws.agentDir, ws.home]) mkdirSync(dir, { recursive: true });
  return ws;
}
