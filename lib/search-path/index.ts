/**
 * The PATH a spawned program is looked up on. A relative PATH entry (`.`, `node_modules/.bin`, an
 * empty entry, which means `.`) is resolved against the working directory of the program being
 * started, and pi-governor starts programs inside the repository (git there, MCP servers in pi's
 * working directory): such an entry would run whatever the repository planted under the command's
 * name. Only absolute entries are searched.
 */
import { delimiter, isAbsolute } from "node:path";

/** The absolute entries of `pathVar`, in order. */
export function absolutePathEntries(pathVar: string | undefined): string[] {
  return (pathVar ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
}

/** `pathVar` without its relative entries (undefined stays undefined). */
export function absoluteSearchPath(pathVar: string | undefined): string | undefined {
  return pathVar === undefined ? undefined : absolutePathEntries(pathVar).join(delimiter);
}
