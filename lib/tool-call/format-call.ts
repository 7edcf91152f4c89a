/**
 * A tool call as one short line, `tool(key="value", ...)`: how a pruned placeholder names the call
 * it replaced and how the recall index names the call an output came from. Pure and deterministic
 * (the same call always gives the same bytes, so a provider's prompt cache keeps matching).
 */

/** Arguments shown at most, by default. */
export const DEFAULT_MAX_ARGS = 5;
/** Characters of one argument's value shown at most, by default (a longer one is cut with an ellipsis). */
export const DEFAULT_MAX_ARG_CHARS = 120;

/** A value as JSON, cut to `max` characters with an ellipsis (a string is cut before it is quoted). */
function formatValue(value: unknown, max: number): string {
  if (typeof value === "string") return JSON.stringify(value.length > max ? `${value.slice(0, max - 1)}…` : value);
  const json = JSON.stringify(value) ?? "null";
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}

/**
 * `tool(key="value", ...)`: the keys in `argOrder` first, then the others in call order; undefined
 * values left out; at most `maxArgs` arguments (default 5), each value at most `maxChars` characters
 * (default 120).
 */
export function formatCall(
  toolName: string,
  args: Readonly<Record<string, unknown>> | undefined,
  argOrder: readonly string[] = [],
  maxArgs = DEFAULT_MAX_ARGS,
  maxChars = DEFAULT_MAX_ARG_CHARS,
): string {
  const a = args ?? {};
  const keys = [...argOrder.filter((k) => k in a && a[k] !== undefined), ...Object.keys(a).filter((k) => !argOrder.includes(k) && a[k] !== undefined)];
  return `${toolName}(${keys
    .slice(0, maxArgs)
    .map((k) => `${k}=${formatValue(a[k], maxChars)}`)
    .join(", ")})`;
}
