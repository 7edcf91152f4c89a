/**
 * `/<root> unfold <id>` restores a fold (persists an unfold record; the folded turns are sent in
 * full again from the next request); `/<root> unfold` lists the folds in force.
 */
import type { GovernorCommand, SessionStore } from "../../core/index.ts";
import { parseCommandArgs } from "../../lib/cli-command/index.ts";
import type { ActiveFold } from "./folds.ts";
import { UNFOLD_KIND } from "./records.ts";
import type { FoldSession, FoldView } from "./session.ts";
import { turnLabel } from "./turn-map.ts";

const n = (v: number) => v.toLocaleString("en-US");
/** Characters of a summary shown in the list. */
const SUMMARY_PREVIEW = 80;

function describe(fold: ActiveFold, view: FoldView): string {
  const s = fold.call.summary.replace(/\s+/g, " ").trim();
  const preview = s.length > SUMMARY_PREVIEW ? `${s.slice(0, SUMMARY_PREVIEW - 1)}...` : s;
  return `${fold.call.id}: ${turnLabel(view.map.turns[fold.first]!, view.map.turns[fold.last]!)}, ${n(fold.end - fold.start)} messages, ${n(fold.chars)} chars: ${preview}`;
}

function list(view: FoldView | undefined): string {
  if (!view?.active.length) return "No active folds in this session.";
  return ["Active folds:", ...view.active.map((f) => `  ${describe(f, view)}`)].join("\n");
}

/** The unfold command for `root`. */
export function unfoldCommand(root: string, session: (sessionId: string) => FoldSession | undefined, store: () => SessionStore): GovernorCommand {
  const usage = `/${root} unfold [id]: restore the fold with this id (the context_fold call id); without an id, list the active folds`;
  return {
    description: "Restore a fold made with context_fold (the folded turns are sent in full again), or list the active folds",
    handler: (args, ctx) => {
      const notes: string[] = [];
      const parsed = parseCommandArgs(
        args.split(/\s+/).filter(Boolean),
        {},
        usage,
        { out: (t) => void notes.push(t), err: (t) => void notes.push(t) },
        { maxPositionals: 1 },
      );
      if (typeof parsed === "number") {
        ctx.ui.notify(notes.join("\n"), parsed === 0 ? "info" : "warning");
        return;
      }
      const view = session(ctx.sessionId)?.view();
      const id = parsed.positionals[0];
      if (!id) {
        ctx.ui.notify(list(view), "info");
        return;
      }
      const fold = view?.active.find((f) => f.call.id === id);
      if (!fold || !view) {
        ctx.ui.notify(`No active fold ${JSON.stringify(id)} in this session. ${list(view)}`, "warning");
        return;
      }
      store().append(UNFOLD_KIND, { id });
      ctx.ui.notify(`Restored ${describe(fold, view)}. They are sent in full again from the next request.`, "info");
    },
  };
}
