/**
 * The model's context as pruning and folding both read it: what a turn is and its key, how a message
 * is recognised across calls, which paths a tool call names and which are protected, the user's pins,
 * and the folding service with the fold tool's name. The prune and fold plugins meet here and through
 * the service, never by importing each other.
 */
export { FOLD_TOOL, FOLDING, type FoldingRules, type FoldingService, hasNewFold, type MessageRanges } from "./folding.ts";
export { fnv1a } from "./hash.ts";
export { MessageIdentities } from "./identity.ts";
export {
  callPath,
  MAX_MATCHED_NAME_CHARS,
  MAX_MATCHED_PATH_CHARS,
  MAX_PATTERN_TOTAL_CHARS,
  type MatchWork,
  normalizePath,
  PATH_ARGS,
  pathGlobMatches,
  protectedPathMatcher,
} from "./paths.ts";
export { loadPins, PIN_KIND, type PinRecord } from "./pins.ts";
export { protectedFrom, startsTurn, turnKey, turnStarts } from "./turns.ts";
