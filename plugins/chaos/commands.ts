/** `/<root> chaos on|off|status`: pause and resume fault injection in a live session, and see counts. */
import type { Pipeline } from "../../core/index.ts";
import type { FaultRule } from "./config.ts";
import { CHAOS_PLUGIN, type ChaosController } from "./controller.ts";

/** One line per rule, for the status text. */
function describeRule(rule: FaultRule, index: number): string {
  const head = `  [${index}] ${rule.type} on ${rule.tools ?? "*"} p=${rule.probability}`;
  switch (rule.type) {
    case "latency":
      return `${head} ${rule.minMs === rule.maxMs ? `${rule.minMs}ms` : `${rule.minMs}-${rule.maxMs}ms`}`;
    case "error":
      return `${head} ${rule.category}${rule.retryAfterMs !== undefined ? ` retry-after ${rule.retryAfterMs}ms` : ""}`;
    case "oversize":
      return `${head} +${rule.bytes} bytes`;
    case "stop":
      return `${head} after ${rule.afterMinMs}-${rule.afterMaxMs}ms for ${rule.stopMs}ms`;
    case "kill":
      return `${head} after ${rule.afterMinMs}-${rule.afterMaxMs}ms`;
    default:
      return head;
  }
}

/** The text of `/<root> chaos status`. */
export function chaosStatusText(controller: ChaosController, faults: readonly FaultRule[]): string {
  const counts = Object.entries(controller.injectedCounts());
  return [
    `chaos: ${controller.active ? "ON (faults are being injected)" : "off"}, seed ${controller.seed}`,
    `injected: ${controller.injected}${counts.length ? ` (${counts.map(([k, v]) => `${k} ${v}`).join(", ")})` : ""}${controller.stoppedCount ? `, ${controller.stoppedCount} server(s) stopped now` : ""}`,
    faults.length ? "rules:" : "rules: none (set chaos.faults in the global config)",
    ...faults.map(describeRule),
  ].join("\n");
}

/** Registers `/<root> chaos`. */
export function registerChaosCommand(pipeline: Pipeline, root: string, controller: ChaosController, faults: readonly FaultRule[]): void {
  pipeline.registerCommand(CHAOS_PLUGIN, `${root} chaos`, {
    description: "Fault injection: on | off | status",
    completions: (prefix) => ["on", "off", "status"].filter((w) => w.startsWith(prefix)),
    handler(args, ctx) {
      const word = args.trim() || "status";
      if (word === "on") {
        controller.active = true;
        ctx.ui.notify(`chaos: ON, injecting faults (seed ${controller.seed}). Turn it off with /${root} chaos off.`, "warning");
      } else if (word === "off") {
        controller.active = false;
        ctx.ui.notify(`chaos: off (${controller.injected} fault(s) injected so far).`, "info");
      } else if (word === "status") {
        ctx.ui.notify(chaosStatusText(controller, faults), "info");
      } else {
        ctx.ui.notify(`unknown argument "${word}"; use /${root} chaos on, off or status`, "error");
        return;
      }
      ctx.ui.setStatus("chaos", controller.active ? "chaos ON" : undefined);
    },
  });
}
