/**
 * `governor:kota` (config key `kota`): KotaDB code intelligence as six bounded tools (kota_index,
 * kota_search, kota_deps, kota_usages, kota_impact, kota_task_context), `kota_status` for the model
 * (connection state, reconnect history, index), a status line
 * (`kota: stopped|starting|running|reconnecting|degraded · repo: <name> · indexed: yes|no|stale`) and
 * `/kota status | index | restart`.
 *
 * KotaDB starts lazily (first kota_* call or /kota status) as `bun x kotadb@next --stdio --toolset core`
 * in the repository root. Without Bun, or when KotaDB cannot start, the kota tools answer with the fix
 * and the user is told once; every other plugin keeps working. Indexing asks first (`confirmIndex`),
 * and in print mode follows `indexWithoutUi`.
 */
import { definePlugin, defineService, LIFECYCLE_STAGE } from "../../core/index.ts";
import { announceServerProcess } from "../../lib/mcp/index.ts";
import { secretArgValues, secretEnvValues } from "../../lib/redact/index.ts";
import { REDACTOR } from "../redact/index.ts";
import { kotaDefaults, kotaSchema } from "./config.ts";
import { kotaStatusReport, registerKotaCommands } from "./commands.ts";
import { kotaDoctorChecks } from "./doctor-checks.ts";
import { readIndexRecord, writeIndexRecord } from "./index-record.ts";
import { managedKotaConnection } from "./managed-connection.ts";
import { type ConnectionFactory, KotaRuntime } from "./runtime.ts";
import { kotaStatusTool, kotaTools } from "./tools.ts";

/** Plugin name. */
export const KOTA_PLUGIN = "governor:kota";

/**
 * The kota plugin's runtime as a service: the KotaDB connection, index state and indexer of this
 * governor. A plugin that uses KotaDB lists it in `requires` and reads it with `services.need(KOTA_RUNTIME)`.
 */
export const KOTA_RUNTIME = defineService<KotaRuntime>("kota:runtime", { providedBy: `${KOTA_PLUGIN} (kota() from pi-governor/plugins/kota/index.ts)` });

/** The kota plugin factory: `kota()` or `kota({ confirmIndex: false })`. */
export const kota = definePlugin({
  name: KOTA_PLUGIN,
  configKey: "kota",
  description: "KotaDB code intelligence as bounded kota_* tools, with index confirmation, staleness warnings, status line and /kota commands.",
  schema: kotaSchema,
  defaults: kotaDefaults,
  trustedKeys: ["command", "args", "env", "cwd"],
  // "Ask before indexing" is the user's: while the user's sources ask (the default), a project may not
  // drop the question; a user who does not ask lets a project ask.
  trustedKeysWhen: (trusted) => [
    ...(trusted.confirmIndex !== false ? ["confirmIndex"] : []),
    ...(trusted.confirmIndex !== false && trusted.indexWithoutUi !== "allow" ? ["indexWithoutUi"] : []),
  ],
  provides: [KOTA_RUNTIME],
  optional: [REDACTOR],
  doctorChecks: kotaDoctorChecks,
  apply(pipeline, config, services) {
    // KotaDB's env may carry tokens: hide those values in its stderr, its errors and every result.
    const redactor = services.maybe(REDACTOR);
    redactor?.addLiterals([...secretEnvValues(config.env), ...secretArgValues(config.args)]);
    const connect: ConnectionFactory = (launch) => {
      const connection = managedKotaConnection(launch, services.logger, `/${services.commandRoot} restart`, redactor);
      connection.onStateChange((to) => pipeline.emit({ type: "custom", source: KOTA_PLUGIN, name: "mcp_state", data: { server: "kota", to } }));
      return connection;
    };
    const runtime = new KotaRuntime(config, services, connect, {
      read: (root) => readIndexRecord(services.agentDir, root),
      write: (root, head, repositoryId, stats) =>
        writeIndexRecord(services.agentDir, root, { head, repositoryId, indexedAt: Date.now(), ...(stats ? { stats } : {}) }),
    });
    services.provide(KOTA_RUNTIME, runtime);
    // kota_* tools carry the `server:kota` tag; fault injection finds the KotaDB process by it.
    announceServerProcess(pipeline, "server:kota", { server: "kota", pid: () => runtime.serverPid() });
    const indexer = runtime.indexer;
    for (const tool of kotaTools(runtime, indexer)) pipeline.registerTool(KOTA_PLUGIN, tool);
    pipeline.registerTool(
      KOTA_PLUGIN,
      kotaStatusTool(() => kotaStatusReport(runtime)),
    );
    registerKotaCommands(pipeline, KOTA_PLUGIN, services, runtime, indexer);
    pipeline.hooks.sessionStart.tap({ name: KOTA_PLUGIN, stage: LIFECYCLE_STAGE.DEFAULT }, () => runtime.updateStatus());
    pipeline.hooks.sessionShutdown.tap({ name: KOTA_PLUGIN, stage: LIFECYCLE_STAGE.DEFAULT }, () => runtime.close());
  },
});

export type { KotaRuntime } from "./runtime.ts";
export { Indexer } from "./index-flow.ts";
export type { KotaOptions } from "./config.ts";
export { budgetCaps, capSchema, clampArg } from "./caps.ts";
export type { KotaLaunch } from "./connection.ts";
export { kotaLaunch } from "./runtime.ts";
export { commandExists, globalConfigFile, kotaStartHint, missingCommandText, type KotaStartFailure } from "./runtime-check.ts";
