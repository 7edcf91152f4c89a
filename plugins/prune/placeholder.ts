/**
 * The text that replaces a pruned tool result. It is a pure function of the result (tool name,
 * arguments, size, blob id), never of time or position, so the same result always prunes to the same
 * bytes: a provider's prompt cache keeps matching the prefix across model calls.
 *
 * It names the tool, its key arguments, and the exact way back: `blob_read({"blobId":"..."})` when
 * the blobs plugin stored the full output, otherwise how to re-run the call narrower.
 */

/** Prefix every placeholder starts with; also how pruned results are recognised. */
export const PRUNED_PREFIX = "(Pruned) ";

/** Arguments shown first, per tool; other tools show their first arguments in call order. */
const KEY_ARGS: Record<string, readonly string[]> = {
  read: ["path", "offset", "limit"],
  bash: ["command"],
  grep: ["pattern", "path", "glob"],
  find: ["pattern", "path"],
  ls: ["path"],
  kota_search: ["query", "scope", "output", "limit", "glob"],
  kota_deps: ["file_path", "direction", "depth"],
  kota_usages: ["symbol", "file"],
  kota_impact: ["change_type", "description", "files_to_modify"],
  kota_task_context: ["files"],
  blob_read: ["blobId", "offset", "limit", "grep"],
};

/** At most this many arguments are shown. */
const MAX_ARGS = 5;
/** A string argument longer than this (characters) is cut with an ellipsis. */
const MAX_ARG_CHARS = 120;
/** Short style: arguments shown and their length cap. */
const SHORT_ARGS = 2;
const SHORT_ARG_CHARS = 60;

/** How a tool's results are re-fetched when no blob holds them. */
const WAY_BACK: Record<string, string> = {
  read: "Re-run read on the same path (use offset/limit for just the lines you need) to rehydrate.",
  bash: "Re-run the command, narrowed (grep/head/tail), to rehydrate.",
  kota_search: "Re-run with narrower query/glob to rehydrate.",
  grep: "Re-run with a narrower pattern/glob to rehydrate.",
};

function formatValue(value: unknown, max: number): string {
  if (typeof value === "string") return JSON.stringify(value.length > max ? `${value.slice(0, max - 1)}…` : value);
  const json = JSON.stringify(value) ?? "null";
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}

/** `tool(key="value", ...)` with the tool's key arguments, deterministic. */
export function formatCall(toolName: string, args: Readonly<Record<string, unknown>> | undefined, maxArgs = MAX_ARGS, maxChars = MAX_ARG_CHARS): string {
  const a = args ?? {};
  const preferred = KEY_ARGS[toolName] ?? [];
  const keys = [...preferred.filter((k) => k in a && a[k] !== undefined), ...Object.keys(a).filter((k) => !preferred.includes(k) && a[k] !== undefined)];
  return `${toolName}(${keys.slice(0, maxArgs).map((k) => `${k}=${formatValue(a[k], maxChars)}`).join(", ")})`;
}

/** What a placeholder is built from. */
export interface PlaceholderInput {
  toolName: string;
  /** The call's arguments, from the assistant's tool call (undefined when the call is not in view). */
  args: Readonly<Record<string, unknown>> | undefined;
  /** Characters of the original result (see size.ts). */
  chars: number;
  /** Image blocks in the original result. */
  images: number;
  isError: boolean;
  /** `meta.blob.id` of the result, when the blobs plugin stored the full output. */
  blobId: string | undefined;
  /** "short" (adaptive mode): fewer arguments and a terse way back. Default "full". */
  style?: "full" | "short";
}

/** The placeholder text for one pruned result. */
export function placeholderText(input: PlaceholderInput): string {
  if (input.style === "short") {
    const call = formatCall(input.toolName, input.args, SHORT_ARGS, SHORT_ARG_CHARS);
    const back = input.blobId ? `blob_read(${JSON.stringify({ blobId: input.blobId })})` : "re-run narrower";
    return `${PRUNED_PREFIX}${call}${input.isError ? " [error]" : ""}; ${back}.`;
  }
  const facts = [`${input.chars.toLocaleString("en-US")} chars`];
  if (input.images) facts.push(`${input.images} image${input.images > 1 ? "s" : ""}`);
  if (input.isError) facts.push("error");
  const wayBack = input.blobId
    ? `Full output stored: blob_read(${JSON.stringify({ blobId: input.blobId })}) (add offset/limit or grep to read part of it).`
    : WAY_BACK[input.toolName] ?? `Re-run ${input.toolName} with narrower arguments to rehydrate.`;
  return `${PRUNED_PREFIX}${formatCall(input.toolName, input.args)} [${facts.join(", ")}]. ${wayBack}`;
}

/** Whether a text block is a placeholder this plugin wrote. */
export function isPlaceholder(text: string): boolean {
  return text.startsWith(PRUNED_PREFIX);
}
