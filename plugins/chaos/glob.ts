/**
 * Tool-name globs (`kota_*`, `everything_?cho`, `*`) as anchored regular expressions. `*` becomes
 * `.*` (runs of stars collapse to one) and `?` becomes `.`; everything else is literal. No group and
 * no nested quantifier is ever produced, so a match costs at most (name length x stars), and tool
 * names are at most 64 characters.
 */
import { escapeRegExp } from "../../lib/regex/index.ts";

/** A predicate for tool names matching `glob`. */
export function globMatcher(glob: string): (name: string) => boolean {
  if (glob === "*") return () => true;
  let source = "";
  for (const part of glob.split(/(\*+|\?)/)) {
    if (!part) continue;
    source += part.startsWith("*") ? ".*" : part === "?" ? "." : escapeRegExp(part);
  }
  const re = new RegExp(`^${source}$`, "s");
  return (name) => re.test(name);
}
