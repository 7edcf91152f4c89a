import { homedir } from "node:os";
import { join } from "node:path";
import type { BlobStore, WrittenBlob } from "../../lib/blobs/index.ts";
import { readPiFullOutput } from "../../lib/pi/index.ts";
import {
  contentText,
  resultMeta,
  type BlobMeta,
  type ContentBlock,
  type GovernorServices,
  type ToolResultInfo,
  type ToolResultValue,
} from "../../core/index.ts";
import { errorText } from "../../core/errors.ts";
import { withMeta } from "../../core/result-meta.ts";
import { REHYDRATION_TAG } from "../../lib/tags/index.ts";
import { utf8Bytes } from "../../lib/size/index.ts";
import type { BlobsOptions } from "./config.ts";
import { boundDetails } from "./details.ts";
import { buildExcerpt } from "./excerpt.ts";
import { jsonOutline } from "./json-outline.ts";
import { blobMarker, unstoredMarker } from "./marker.ts";

/**
 * Builds the `toolResult` transform: a result over its threshold is stored whole (the text exactly
 * as the tool produced it) and replaced by a bounded excerpt whose first line names the blob.
 * Applies to governed tools always and to pi's built-ins listed in `builtinTools`; never to
 * rehydration tools or to pi's `read` of a file inside the cache (no recovery loops). A cache that
 * cannot be written degrades to an excerpt without a pointer and one warning. The threshold is the
 * tool's `thresholdBytes`, else the budget stage's `meta.budget.maxBytes`, else `thresholdBytes`;
 * what was stored goes into the result's `meta.blob`.
 */
export function createShaper(store: BlobStore, config: BlobsOptions, services: Pick<GovernorServices, "cwd" | "logger" | "ui">) {
  const builtins = new Set(config.builtinTools);
  let warned = false;

  const warnOnce = (error: unknown) => {
    services.logger.warn("blob cache not writable; large outputs are cut without a stored copy", { dir: store.dir, error: errorText(error) });
    if (warned) return;
    warned = true;
    services
      .ui()
      .notify(
        `pi-governor: cannot write the blob cache ${store.dir} (${errorText(error)}). Large tool outputs are cut without a stored copy; fix the directory or set blobs.dir.`,
        "warning",
      );
  };

  const applies = (value: ToolResultValue, info: ToolResultInfo): boolean => {
    if (info.tool) return !info.tool.tags.includes(REHYDRATION_TAG);
    if (!builtins.has(value.toolName)) return false;
    return !readsTheCache(value, store, services.cwd);
  };

  return async (value: ToolResultValue, info: ToolResultInfo): Promise<ToolResultValue | undefined> => {
    if (!applies(value, info)) return undefined;
    const meta = resultMeta(value);
    if (meta.blob?.truncated && meta.blob.id !== undefined) return undefined;

    const perTool = config.perTool[value.toolName] ?? {};
    const budgetMax = meta.budget?.maxBytes;
    const threshold = perTool.thresholdBytes ?? (budgetMax !== undefined && budgetMax > 0 ? budgetMax : config.thresholdBytes);
    const excerptBudget = Math.min(perTool.excerptBytes ?? config.excerptBytes, threshold);

    const textBlocks = value.content.filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text");
    const text = contentText(textBlocks);
    const originalBytes = utf8Bytes(text);
    const details = boundDetails(value.details, config.maxDetailsBytes);
    if (originalBytes <= threshold) return details === value.details ? undefined : { ...value, details };

    let stored: WrittenBlob | undefined;
    let blobError: string | undefined;
    try {
      // pi cuts large output itself (bash, pi 1.x's MCP tools) and writes the whole of it to a temp
      // file: store that, read safely; a file that is gone or not to trust leaves pi's own copy. The
      // store redacts what it writes (the file never passed the redact stage).
      const full = info.tool ? undefined : await readPiFullOutput(value.details);
      stored = await store.put(full ?? text);
    } catch (error) {
      blobError = (error as NodeJS.ErrnoException).code ?? errorText(error);
      warnOnce(error);
    }
    const marker = stored ? blobMarker(stored.id, stored.bytes) : unstoredMarker(originalBytes, blobError ?? "unknown error");
    // Outline the largest block: a budget note in its own block must not hide the JSON answer.
    const largest = textBlocks.reduce((a, b) => (b.text.length > a.length ? b.text : a), "");
    const outline = jsonOutline(largest, { maxParseBytes: config.jsonOutlineMaxBytes, maxChars: Math.floor(excerptBudget / 8) });
    const excerpt = buildExcerpt(text, { budgetBytes: excerptBudget, marker, ...(outline ? { outline } : {}) });

    const images = value.content.filter((b): b is Exclude<ContentBlock, { type: "text" }> => b.type !== "text");
    const blob: BlobMeta = {
      truncated: true,
      ...(stored ? { id: stored.id, path: stored.path } : { error: blobError ?? "unknown error" }),
      originalBytes: stored?.bytes ?? originalBytes,
      excerptBytes: excerpt.bytes,
    };
    return { ...value, content: [{ type: "text", text: excerpt.text }, ...images], details: withMeta(details, { blob }) };
  };
}

/** True when a pi `read` call targets a file inside the blob cache. */
function readsTheCache(value: ToolResultValue, store: BlobStore, cwd: string): boolean {
  if (value.toolName !== "read") return false;
  const raw = value.input.path ?? value.input.file_path;
  if (typeof raw !== "string") return false;
  // pi accepts "@path" and "~/path" in its read tool.
  let path = raw.startsWith("@") ? raw.slice(1) : raw;
  if (path === "~" || path.startsWith("~/")) path = join(homedir(), path.slice(1));
  return store.contains(path, cwd);
}
