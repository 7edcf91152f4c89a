import { errorText, isPluginError } from "../../core/errors.ts";
import type { Governor } from "../../core/governor.ts";
import type { CommandContext, GovernorCommand } from "../../core/tool-types.ts";
import type { PiApi, PiContext } from "./pi-api.ts";
import { commandUiBridgeFrom } from "./ui-bridge.ts";

/** The "root sub" commands of a governor, by root, plus the always-present `/governor status`. */
function commandTree(governor: Governor): Map<string, Map<string, GovernorCommand>> {
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
  return roots;
}

/** Registered command roots; `sync` adds the roots a newer governor brings. */
export interface MountedCommands {
  /** Registers the roots of `governor` that are not registered yet (pi accepts commands after load). */
  sync(governor: Governor): void;
}

/**
 * Mounts the pipeline's "root sub" commands as one pi command per root (`/kota`, `/governor`),
 * dispatching on the first word. `/governor status` is always there. Subcommands are looked up in
 * the governor `current()` returns (after `prepare`, which switches to the session's governor)
 * when the command runs, so a governor rebuilt for another cwd answers its own commands.
 */
export function mountCommands(pi: PiApi, current: () => Governor, prepare: (ctx: PiContext) => Promise<CommandContext>): MountedCommands {
  const mounted = new Set<string>();
  const subsOf = (root: string) => commandTree(current()).get(root) ?? new Map<string, GovernorCommand>();

  const mount = (root: string, description: string) => {
    mounted.add(root);
    pi.registerCommand(root, {
      description,
      getArgumentCompletions: (prefix: string) => {
        const subs = subsOf(root);
        const names = [...subs.keys()].sort();
        const [first = "", ...rest] = prefix.split(" ");
        if (rest.length === 0) return names.filter((n) => n.startsWith(first)).map((n) => ({ value: n, label: n }));
        const command = subs.get(first);
        return command?.completions?.(rest.join(" ")).map((v) => ({ value: `${first} ${v}`, label: v })) ?? null;
      },
      handler: async (args, ctx) => {
        // Usage and failures are answers too: they reach the user in print mode as well.
        const ui = commandUiBridgeFrom(ctx);
        let context: CommandContext;
        try {
          context = await prepare(ctx);
        } catch (error) {
          ui.notify(`/${root} failed: ${(error as Error).message}`, "error");
          return;
        }
        const subs = subsOf(root);
        const names = [...subs.keys()].sort();
        const trimmed = args.trim();
        const space = trimmed.indexOf(" ");
        const sub = space < 0 ? trimmed : trimmed.slice(0, space);
        const rest = space < 0 ? "" : trimmed.slice(space + 1).trim();
        const command = subs.get(sub || (subs.has("status") ? "status" : ""));
        if (!command) {
          const help = names.map((n) => `  /${root} ${n}: ${subs.get(n)!.description}`).join("\n");
          ui.notify(`${sub ? `unknown subcommand "${sub}". ` : ""}Usage:\n${help || "  (none in this session's config)"}`, sub ? "warning" : "info");
          return;
        }
        const resolved = sub || "status";
        try {
          // Registered commands run through the pipeline, which reports a failure with its plugin
          // (a plugin_error, listed under /governor status problems) and rejects with a PluginError.
          const { pipeline } = current();
          const path = `${root} ${resolved}`;
          if (pipeline.commands.get(path)?.command === command) await pipeline.runCommand(path, rest, context);
          else await command.handler(rest, context);
        } catch (error) {
          ui.notify(isPluginError(error) ? error.message : `/${root} ${resolved} failed: ${errorText(error)}`, "error");
        }
      },
    });
  };

  const sync = (governor: Governor) => {
    for (const [root, subs] of commandTree(governor)) {
      if (!mounted.has(root)) mount(root, `${root}: ${[...subs.keys()].sort().join(" | ")}`);
    }
  };
  sync(current());
  return { sync };
}
