/**
 * pi-governor's default preset (`kota`) for e2e tests, with every file it writes inside one work
 * folder (blobs, recall's index, the execution log, the agent dir) and KotaDB's stand-in.
 */
import { join } from "node:path";
import type { ExtensionFactory } from "@mariozechner/pi-coding-agent";
import { createExtension } from "pi-governor/host";
import { kotaPreset, presetsExcept } from "../../presets/index.ts";
import { standinKotaConfig } from "./kota-standin.ts";

/** The extension; `extra` merges into the global config (e.g. `{ breaker: { failureThreshold: 2 } }`). Execution-log rows are written one by one. */
export function hermeticDefaultPreset(work: string, extra: Record<string, unknown> = {}): ExtensionFactory {
  return createExtension(kotaPreset, {
    presets: presetsExcept(kotaPreset),
    governorOptions: {
      cwd: work,
      agentDir: join(work, "agent"),
      layers: [
        {
          kind: "global",
          source: "e2e",
          data: {
            kota: standinKotaConfig(),
            blobs: { dir: join(work, "blobs") },
            recall: { dbPath: join(work, "recall.db") },
            executionLog: { dbPath: join(work, "executions.db"), batchSize: 1 },
            ...extra,
          },
        },
      ],
    },
  }) as ExtensionFactory;
}
