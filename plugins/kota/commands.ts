/**
 * `/kota status | index | restart` (under `services.commandRoot`; `pruning`, `pin`, `blobs` and
 * `purge-blobs` come from the prune and blobs plugins under the same root).
 */
import { errorText } from "../../core/errors.ts";
import type { GovernorServices, Pipeline } from "../../core/index.ts";
import type { Indexer } from "./index-flow.ts";
import { renderRecentFiles, renderStatistics } from "./render/index-stats.ts";
import type { KotaRuntime } from "./runtime.ts";

/**
 * What `/kota status` and the `kota_status` tool report: process state, connection history, repository,
 * index statistics and recent files, the last server error, the command and the main options.
 * Starts KotaDB when it is not running (status is one of the documented lazy-start triggers).
 */
export async function kotaStatusReport(runtime: KotaRuntime): Promise<string> {
  const lines = [await runtime.statusLine(), `Repository root: ${await runtime.root()}`];
  const interrupted = runtime.indexer.interruptionLine();
  if (interrupted) lines.push(interrupted);
  try {
    await runtime.probe();
    const stats = await runtime.call("get_index_statistics", {});
    lines.push(`Index: ${renderStatistics(stats.json)}`);
    if (runtime.repositoryId) lines.push(`Repository id: ${runtime.repositoryId}`);
    if (runtime.indexHead) lines.push(`Indexed at commit: ${runtime.indexHead.slice(0, 12)}`);
    const recent = await runtime.call("list_recent_files", { limit: 8 });
    const recentLine = renderRecentFiles(recent.json, 8);
    if (recentLine) lines.push(recentLine);
  } catch (error) {
    lines.push(`KotaDB: ${errorText(error)}`);
    const tail = (error as { stderrTail?: string }).stderrTail;
    if (tail) lines.push(`stderr: ${tail}`);
  }
  const connection = runtime.connectionStatus();
  if (connection) lines.push(`Connection: ${connection}`);
  else {
    const last = runtime.lastServerError();
    if (last) lines.push(`Last server error: ${last}`);
  }
  lines.push(`Command: ${runtime.commandLine()} (cwd: ${runtime.config.cwd || "filesystem root, so nothing the repository ships runs in KotaDB"})`);
  const ignored = runtime.ignoredLaunchNote();
  if (ignored) lines.push(ignored);
  lines.push(`confirmIndex: ${runtime.config.confirmIndex}, indexWithoutUi: ${runtime.config.indexWithoutUi}, autoContext: ${runtime.config.autoContext}`);
  await runtime.updateStatus();
  return lines.join("\n");
}

/** Registers the kota subcommands for `owner` (the plugin name). */
export function registerKotaCommands(pipeline: Pipeline, owner: string, services: GovernorServices, runtime: KotaRuntime, indexer: Indexer): void {
  const root = services.commandRoot;

  pipeline.registerCommand(owner, `${root} status`, {
    description: "KotaDB process state, repository, index state and statistics, recently indexed files, command",
    async handler(_args, ctx) {
      ctx.ui.notify(await kotaStatusReport(runtime), "info");
    },
  });

  pipeline.registerCommand(owner, `${root} index`, {
    description: "Index (or re-index) the repository with KotaDB, after confirmation",
    async handler(_args, ctx) {
      if (indexer.busy) ctx.ui.notify("KotaDB indexing is already running; waiting for it.", "info");
      try {
        const outcome = await indexer.request({ ui: ctx.ui, force: true, requester: "/kota index" });
        ctx.ui.notify(outcome.text, outcome.status === "indexed" || outcome.status === "already" ? "info" : "warning");
      } catch (error) {
        ctx.ui.notify(`KotaDB indexing failed: ${errorText(error)}`, "error");
      }
    },
  });

  pipeline.registerCommand(owner, `${root} restart`, {
    description: "Restart the KotaDB server (after installing Bun, or when it is degraded)",
    async handler(_args, ctx) {
      try {
        await runtime.restart();
        await runtime.probe();
        ctx.ui.notify(`KotaDB restarted. ${await runtime.statusLine()}`, "info");
      } catch (error) {
        ctx.ui.notify(`KotaDB restart failed: ${errorText(error)}`, "error");
      }
    },
  });
}
