import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { errorText, isPluginError } from "../errors.ts";
import type { Governor } from "../host.ts";
import type { CommandContext, GovernorCommand } from "../tool-types.ts";

/**
 * Mounts the pipeline's "root sub" commands as one pi command per root (`/kota`, `/governor`),
 * dispatching on the first word. `/governor status` is always there.
 */
export function mountCommands(pi: ExtensionAPI, governor: Governor, contextFor: (ctx: ExtensionCommandContext) => CommandContext): void {
  const roots = new Map<string, Map<string, GovernorCommand>>();
  const add = (root: string, sub: string, command: GovernorCommand) => {
    const subs = roots.get(root) ?? roots.set(root, new Map()).get(root)!;
    if (!subs.has(sub)) subs.set(sub, command);
  };
  for (const [path, { command }] of governor.pipeline.commands) {
    const [root, sub] = path.split(" ") as [string, string];
    add(root, sub, command);
  }
  const status: GovernorCommand = {
    description: "Stages in run order, plugins, tools, config sources and problems",
    handler: (_args, ctx) => ctx.ui.notify(governor.statusText(), "info"),
  };
  add("governor", "status", status);

  for (const [root, subs] of roots) {
    const names = [...subs.keys()].sort();
    pi.registerCommand(root, {
      description: `${root}: ${names.join(" | ")}`,
      getArgumentCompletions: (prefix: string) => {
        const [first = "", ...rest] = prefix.split(" ");
        if (rest.length === 0) return names.filter((n) => n.startsWith(first)).map((n) => ({ value: n, label: n }));
        const command = subs.get(first);
        return command?.completions?.(rest.join(" ")).map((v) => ({ value: `${first} ${v}`, label: v })) ?? null;
      },
      handler: async (args, ctx) => {
        const trimmed = args.trim();
        const space = trimmed.indexOf(" ");
        const sub = space < 0 ? trimmed : trimmed.slice(0, space);
        const rest = space < 0 ? "" : trimmed.slice(space + 1).trim();
        const command = subs.get(sub || (subs.has("status") ? "status" : ""));
        if (!command) {
          const help = names.map((n) => `  /${root} ${n}: ${subs.get(n)!.description}`).join("\n");
          ctx.ui.notify(`${sub ? `unknown subcommand "${sub}". ` : ""}Usage:\n${help}`, sub ? "warning" : "info");
          return;
        }
        const resolved = sub || "status";
        try {
          // Registered commands run through the pipeline, which reports a failure with its plugin
          // (a plugin_error, listed under /governor status problems) and rejects with a PluginError.
          if (command === status) await command.handler(rest, contextFor(ctx));
          else await governor.pipeline.runCommand(`${root} ${resolved}`, rest, contextFor(ctx));
        } catch (error) {
          ctx.ui.notify(isPluginError(error) ? error.message : `/${root} ${resolved} failed: ${errorText(error)}`, "error");
        }
      },
    });
  }
}
