/** JSON helpers shared by plugins. */
export { canonicalJson } from "./canonical.ts";
