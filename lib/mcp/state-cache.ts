/**
 * The last-known state of a server: version, tools and caller-provided extras (KotaDB: whether the
 * repository was indexed). After a reconnect the new state is diffed against it, so what a restart
 * lost (an index, a tool) can be told to the agent once.
 */
import { visible } from "../visible/index.ts";
import type { McpTool } from "./connection-types.ts";

/** What is known about a running server. */
export interface ServerSnapshot {
  serverVersion?: { name: string; version: string };
  /** Tool names in tools/list order. */
  tools: string[];
  /** From the config's `probe`; plain JSON values. */
  extra: Record<string, unknown>;
}

/** Builds a snapshot. */
export function snapshotOf(serverVersion: ServerSnapshot["serverVersion"], tools: readonly McpTool[], extra: Record<string, unknown>): ServerSnapshot {
  return { ...(serverVersion ? { serverVersion } : {}), tools: tools.map((t) => t.name), extra };
}

/** Lines saying what differs after a reconnect (empty: nothing was lost). */
export function diffSnapshots(before: ServerSnapshot, after: ServerSnapshot): string[] {
  const lines: string[] = [];
  const v = (s: ServerSnapshot) => (s.serverVersion ? visible(`${s.serverVersion.name.slice(0, 200)} ${s.serverVersion.version.slice(0, 200)}`) : "unknown");
  if (before.serverVersion && v(before) !== v(after)) lines.push(`server version changed: ${v(before)} -> ${v(after)}`);
  const now = new Set(after.tools);
  const gone = before.tools.filter((t) => !now.has(t));
  if (gone.length) lines.push(`tools no longer offered: ${gone.join(", ")}`);
  const was = new Set(before.tools);
  const added = after.tools.filter((t) => !was.has(t));
  if (added.length) lines.push(`new tools: ${added.join(", ")}`);
  for (const key of new Set([...Object.keys(before.extra), ...Object.keys(after.extra)])) {
    const a = JSON.stringify(before.extra[key]);
    const b = JSON.stringify(after.extra[key]);
    if (a !== b) lines.push(`${key} was ${a ?? "unset"}, now ${b ?? "unset"}`);
  }
  return lines;
}
