/**
 * A kota-only governor over the KotaDB stand-in (or the real KotaDB of `KOTADB_CMD`) on a fixture
 * repo, with a UI bridge that records notifications, status lines and confirmations.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText, definePreset, type Governor, type UiBridge } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { kota } from "../../../../plugins/kota/index.ts";
import { createFixtureRepo, type FixtureRepo } from "../../../fixtures/kota-repo.ts";
import { callLogIn, standinKotaConfig } from "../../../helpers/kota-standin.ts";

/** A UI bridge that records what the user saw. */
export interface RecordingBridge extends UiBridge {
  notes: string[];
  statuses: Map<string, string | undefined>;
  confirms: string[];
}

/** A recording UI that answers every confirmation with `answer`. */
export function recordingUi(answer: boolean, hasUI = true): RecordingBridge {
  const notes: string[] = [];
  const statuses = new Map<string, string | undefined>();
  const confirms: string[] = [];
  return {
    hasUI,
    notes,
    statuses,
    confirms,
    notify: (m) => void notes.push(m),
    setStatus: (k, t) => void statuses.set(k, t),
    confirm: async (t, m) => {
      confirms.push(`${t} ${m}`);
      return answer;
    },
  };
}

/** One test's repo, work dir and governors; `dispose` shuts everything down and deletes the folders. */
export class KotaHarness {
  readonly repo: FixtureRepo;
  readonly work = mkdtempSync(join(tmpdir(), "kota-int-"));
  private readonly governors: Governor[] = [];

  constructor(files?: Readonly<Record<string, string>>) {
    this.repo = createFixtureRepo(files);
  }

  /** A governor whose `kota` section starts the stand-in with `env`, merged with `kotaConfig`. */
  async build(kotaConfig: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<Governor> {
    const preset = definePreset({ name: "kota-only", description: "", commandRoot: "kota", plugins: () => [kota()] });
    const g = await createGovernor({
      preset,
      cwd: this.repo.root,
      agentDir: join(this.work, "agent"),
      layers: [{ kind: "global", source: "test", data: { kota: standinKotaConfig({ KOTADB_STANDIN_LOG: callLogIn(this.work), ...env }, kotaConfig) } }],
    });
    this.governors.push(g);
    return g;
  }

  async dispose(): Promise<void> {
    for (const g of this.governors.splice(0)) await g.pipeline.hooks.sessionShutdown.run({ sessionId: "", cwd: this.repo.root, reason: "quit" });
    this.repo.remove();
    rmSync(this.work, { recursive: true, force: true });
  }
}

/** Calls a tool through the pipeline; the text and its UTF-8 size. */
export async function callTool(g: Governor, tool: string, args: Record<string, unknown>) {
  const obs = await g.pipeline.callTool(tool, args);
  return { obs, text: contentText(obs.content), bytes: Buffer.byteLength(contentText(obs.content)) };
}
