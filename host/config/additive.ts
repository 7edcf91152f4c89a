/**
 * Lists that protect the user add up across config sources instead of replacing each other. Arrays
 * otherwise replace whole when layers merge, so a repository's `.pi/pi-governor.json` with
 * `"deny": []` would remove the user's global deny list. A plugin names such lists in its spec
 * (`additiveKeys`); the resolver asks this module for the value in force.
 */
import type { z } from "zod";

/** One source's value of an additive list, already validated entry by entry. */
export interface ListContribution {
  /** A project file (untrusted), not the global file or the environment. */
  fromProject: boolean;
  /** File path or env variable name, as problems name it. */
  source: string;
  entries: readonly unknown[];
}

/** The list in force, and the entries left out because the list would break its schema (its bound). */
export interface AdditiveList {
  value: unknown[];
  /** Entries not added, per source (only sources that lost some). */
  dropped: Array<{ source: string; count: number }>;
  /** The list as the user's own sources (defaults, global file, environment) set it, without any project entry. */
  trusted: unknown[];
}

/**
 * The value in force of one additive list: the default until the global file or the environment
 * sets the list (then the union of what they set, in order), followed by every entry a project file
 * adds. Equal entries count once. Entries are added one by one while the list still passes `schema`
 * (its size bound, a total-length rule): the user's entries go first, so a project that fills the
 * list can push out only its own entries, never the user's, and never turn the whole key invalid
 * (which would put it back to its default).
 */
export function additiveList(schema: z.ZodType, defaults: readonly unknown[], contributions: readonly ListContribution[]): AdditiveList {
  const own = contributions.filter((c) => !c.fromProject);
  const projects = contributions.filter((c) => c.fromProject);
  const ordered: ListContribution[] = own.length ? own : [{ fromProject: false, source: "defaults", entries: defaults }];
  const value: unknown[] = [];
  const seen = new Set<string>();
  const dropped = new Map<string, number>();
  const add = (c: ListContribution) => {
    for (const entry of c.entries) {
      const key = JSON.stringify(entry);
      if (seen.has(key)) continue;
      if (!schema.safeParse([...value, entry]).success) {
        dropped.set(c.source, (dropped.get(c.source) ?? 0) + 1);
        continue;
      }
      seen.add(key);
      value.push(entry);
    }
  };
  for (const c of ordered) add(c);
  const trusted = [...value];
  for (const c of projects) add(c);
  return { value, trusted, dropped: [...dropped].map(([source, count]) => ({ source, count })) };
}

/** The problem text for entries an additive list left out. */
export function droppedMessage(count: number): string {
  return `${count} ${count === 1 ? "entry" : "entries"} not added: the list in force would break its bound; the user's entries are kept`;
}
