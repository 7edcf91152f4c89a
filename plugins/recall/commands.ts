/** The user's recall commands: `/<root> search`, `/<root> purge-index`, `/<root> recall`. */
import { errorText } from "../../core/errors.ts";
import type { GovernorCommand } from "../../core/index.ts";
import type { BlobStore } from "../../lib/blobs/index.ts";
import { formatHits } from "./format.ts";
import { savingsLines, type SavingsTracker } from "./savings.ts";
import { scopeFilter, searchLive, type SearchScope } from "./search.ts";
import type { RecallWriter } from "./writer.ts";

/** Bytes of a search answer shown to the user (more room than the model's). */
const USER_ANSWER_BYTES = 8_192;

/** Parses `[--project|--all] [--tool name] words...`. */
export function parseSearchArgs(text: string): { scope: SearchScope; tool?: string; query: string } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  let scope: SearchScope = "session";
  let tool: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--all") scope = "all";
    else if (w === "--project") scope = "project";
    else if (w === "--tool" && i + 1 < words.length) tool = words[++i];
    else rest.push(w);
  }
  return { scope, ...(tool ? { tool } : {}), query: rest.join(" ") };
}

/** `<root> search [--project|--all] [--tool name] <query>`. */
export function searchCommand(writer: RecallWriter, store: BlobStore, root: string): GovernorCommand {
  return {
    description: "Search every tool output of this session (--project, --all: wider; --tool name)",
    async handler(args, ctx) {
      const { scope, tool, query } = parseSearchArgs(args);
      if (!query) {
        ctx.ui.notify(`Usage: /${root} search [--project|--all] [--tool name] <words>`, "warning");
        return;
      }
      await writer.flush();
      const index = await writer.index();
      if (!index) {
        ctx.ui.notify(`The recall index is unavailable${writer.broken ? `: ${writer.broken}` : " (busy; try again)"}.`, "warning");
        return;
      }
      try {
        const { hits, relaxed } = await searchLive(index, store, query, {
          ...scopeFilter(scope, ctx.sessionId, ctx.cwd),
          ...(tool ? { tool } : {}),
          limit: 10,
        });
        ctx.ui.notify(formatHits(query, hits, { nowMs: Date.now(), maxBytes: USER_ANSWER_BYTES, relaxed, scope, showSession: scope !== "session" }), "info");
      } catch (error) {
        ctx.ui.notify(`Search failed: ${errorText(error)}`, "warning");
      }
    },
  };
}

/** `<root> purge-index`: empties the search index after a confirmation; refuses without a UI. */
export function purgeIndexCommand(writer: RecallWriter, root: string): GovernorCommand {
  return {
    description: "Delete the recall search index (asks first; stored outputs stay in the blob cache)",
    async handler(_args, ctx) {
      await writer.flush();
      const index = await writer.index();
      if (!index) {
        ctx.ui.notify(
          `The recall index ${writer.options.path} is unavailable${writer.broken ? `: ${writer.broken}` : ""}. Delete the file yourself to reset it.`,
          "warning",
        );
        return;
      }
      if (!ctx.ui.hasUI) {
        ctx.ui.notify(
          `/${root} purge-index needs a confirmation and there is no interactive UI. Run it in pi's interactive mode, or delete ${writer.options.path} yourself.`,
          "warning",
        );
        return;
      }
      const count = index.count();
      const ok = await ctx.ui.confirm(
        "Purge the search index?",
        `Delete the index of ${count} tool output(s) in ${writer.options.path}, for every project? Stored outputs stay readable with blob_read.`,
      );
      if (!ok) {
        ctx.ui.notify("Search index kept.", "info");
        return;
      }
      const removed = index.purge();
      ctx.ui.notify(`Purged ${removed} output(s) from the search index.`, "info");
    },
  };
}

/** `<root> recall`: what is indexed for this session per tool, and what is kept out of the context. */
export function recallStatusCommand(writer: RecallWriter, savings: SavingsTracker): GovernorCommand {
  return {
    description: "Search index and context savings of this session, per tool",
    async handler(_args, ctx) {
      await writer.flush();
      const index = await writer.index();
      const lines = [`Recall index: ${writer.options.path}${index ? "" : ` (unavailable${writer.broken ? `: ${writer.broken}` : ""})`}`];
      if (index) {
        const totals = index.totals(ctx.sessionId);
        lines.push(`Indexed in this session: ${totals.reduce((s, t) => s + t.outputs, 0)} output(s); in total: ${index.count()}`);
        for (const t of totals) lines.push(`  ${t.tool}: ${t.outputs} output(s), ${t.bytes.toLocaleString("en-US")} bytes`);
      }
      lines.push(...savingsLines(savings.last));
      ctx.ui.notify(lines.join("\n"), "info");
    },
  };
}
