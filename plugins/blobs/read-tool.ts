import { Type } from "typebox";
import { stringEnum } from "../../lib/schema/index.ts";
import { shortId, type BlobStore } from "../../lib/blobs/index.ts";
import { compilePattern } from "../../lib/regex/index.ts";
import { InvalidInputError, textContent, type GovernedToolDefinition, type ToolExecuteResult } from "../../core/index.ts";
import { REHYDRATION_TAG } from "../../lib/tags/index.ts";
import { BLOB_READ_TOOL, blobReadCall, formatBytes } from "./marker.ts";

/** Default and largest number of lines one blob_read returns. */
export const BLOB_READ_DEFAULT_LINES = 200;
const MAX_LINES = 5_000;

const parameters = Type.Object({
  blobId: Type.String(),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: "First line (1-based) or byte (0-based)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Default 200 lines, 50 matches" })),
  unit: Type.Optional(stringEnum(["lines", "bytes"], { description: "Default lines" })),
  grep: Type.Optional(Type.String({ description: "Case-insensitive regex" })),
});

/**
 * `blob_read`: reads a stored full output back in bounded pages, by lines or bytes, or greps it.
 * Governed like every tool (the timeout, pi's abort/Esc and the execution log apply; reads stop
 * between chunks when the call's signal aborts), and tagged `rehydration` so its answers are never
 * cut into another blob and the budget and breaker leave it alone (it reads a local file). The grep
 * pattern runs through lib/regex: linear time for a literal, a worker under a deadline otherwise.
 * `grepOptions.batchDeadlineMs`: how long one batch of lines may take before the pattern is judged
 * too slow, in milliseconds (default 2,000).
 */
export function blobReadTool(store: BlobStore, readMaxBytes: number, grepOptions: { batchDeadlineMs?: number } = {}): GovernedToolDefinition {
  return {
    name: BLOB_READ_TOOL,
    label: "Read stored output",
    description:
      "Read back a stored tool output a [blob …] marker or (Pruned) placeholder names. Add offset/limit or grep to read part of it; follow [next: …] for more.",
    parameters,
    tags: [REHYDRATION_TAG],
    annotations: { readOnlyHint: true, idempotentHint: true },
    async execute(call): Promise<ToolExecuteResult> {
      const signal = call.signal;
      const args = call.args as { blobId?: unknown; offset?: number; limit?: number; unit?: string; grep?: string };
      checkPaging(args);
      const id = await store.resolve(args.blobId);
      const located = await store.locate(id);
      store.reference(id);
      const head = `[blob ${shortId(id)}: ${formatBytes(located.bytes)} bytes]`;
      const again = (extra: Record<string, unknown>) => blobReadCall(id, extra);

      if (typeof args.grep === "string" && args.grep.length > 0) {
        const pattern = compilePattern(args.grep);
        const from = Math.max(1, args.offset ?? 1);
        const found = await store.grep(id, pattern, {
          fromLine: from,
          maxMatches: Math.min(args.limit ?? 50, 500),
          maxBytes: readMaxBytes,
          signal,
          ...grepOptions,
        });
        const lines = found.matches.map((m) => `${m.line}: ${m.text}`);
        const more = found.nextLine !== undefined ? `\n[more matches: ${again({ grep: args.grep, offset: found.nextLine })}]` : "\n[no more matches]";
        const summary = `${head} ${found.matches.length} line(s) matching ${JSON.stringify(args.grep)} from line ${from}`;
        return {
          content: textContent(`${summary}\n${lines.join("\n")}${more}`),
          meta: { blob: { truncated: false, id } },
          details: { matches: found.matches.length, nextLine: found.nextLine ?? null },
        };
      }

      if (args.unit === "bytes") {
        signal.throwIfAborted();
        const page = await store.readBytePage(id, args.offset ?? 0, Math.min(args.limit ?? readMaxBytes, readMaxBytes));
        const end = page.nextOffset >= page.totalBytes ? "\n[end of blob]" : `\n[next: ${again({ unit: "bytes", offset: page.nextOffset })}]`;
        return {
          content: textContent(`${head} bytes ${page.offset}-${page.nextOffset} of ${page.totalBytes}\n${page.text}${end}`),
          meta: { blob: { truncated: false, id } },
          details: { offset: page.offset, nextOffset: page.nextOffset, totalBytes: page.totalBytes },
        };
      }

      if (args.unit !== undefined && args.unit !== "lines") {
        throw new InvalidInputError(`unit must be "lines" or "bytes", got ${JSON.stringify(String(args.unit).slice(0, 20))}`, {
          agentMessage: 'Use unit: "lines" or unit: "bytes".',
        });
      }
      const from = Math.max(1, args.offset ?? 1);
      const page = await store.readLinePage(id, from, Math.min(args.limit ?? BLOB_READ_DEFAULT_LINES, MAX_LINES), readMaxBytes, signal);
      const last = page.firstLine + page.lines.length - 1;
      const range = page.lines.length ? `lines ${page.firstLine}-${last}` : `no lines from line ${from} (past the end)`;
      const cut = page.cutLine
        ? `\n[line ${page.cutLine.line} is ${formatBytes(page.cutLine.lineBytes)} bytes long and was cut; read it by bytes: ${again({ unit: "bytes", offset: page.cutLine.byteOffset })}]`
        : "";
      const end = page.nextLine !== undefined ? `\n[next: ${again({ offset: page.nextLine })}]` : page.lines.length ? "\n[end of blob]" : "";
      return {
        content: textContent(`${head} ${range}\n${page.lines.join("\n")}${cut}${end}`),
        meta: { blob: { truncated: false, id } },
        details: { firstLine: page.firstLine, nextLine: page.nextLine ?? null },
      };
    },
  };
}

/**
 * Refuses paging arguments that would not move forward: a `limit` below 1 (limit 0 named the same
 * offset as the next page again, and a model following the hint looped) or a negative `offset`.
 * pi checks the schema's minimum too, but not every caller goes through pi (scripts, other hosts).
 */
function checkPaging(args: { offset?: unknown; limit?: unknown }): void {
  for (const [key, least] of [
    ["limit", 1],
    ["offset", 0],
  ] as const) {
    const value = args[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < least) {
      const shown = typeof value === "number" ? String(value) : JSON.stringify(String(value).slice(0, 20));
      throw new InvalidInputError(`${key} must be a whole number of at least ${least}, got ${shown}`, {
        agentMessage:
          key === "limit"
            ? "Leave limit out for a default page, or pass 1 or more; continue with the exact call the [next: …] hint names."
            : "Pass the offset the [next: …] hint names, or leave it out to start at the beginning.",
      });
    }
  }
}
