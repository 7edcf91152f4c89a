/**
 * What folding persists in the session (pi custom entries via services.store(), never sent to the
 * model). The folds themselves are not records: a `context_fold` call whose result is not an error
 * IS the fold (see folds.ts), so a replayed recorded session folds the same way. The kinds keep the
 * names they had when folding was a part of the prune plugin, so existing sessions read the same.
 */
import type { SessionStore } from "../../core/index.ts";

/** Record kind of one `/<root> unfold <id>`: the fold with that id is no longer applied. */
export const UNFOLD_KIND = "governor:prune-unfold";
/** Record kind of one fold nudge, keyed by the turn-starting user message it was appended to. */
export const NUDGE_KIND = "governor:prune-nudge";

/** A nudge: the text block appended to the user message whose turnKey is `key`. */
export interface NudgeRecord {
  /** turnKey (lib/context) of the user message that carries the nudge. */
  key: string;
  /** The text block, byte for byte as every later request renders it. */
  text: string;
}

/** Ids of the folds the user restored. */
export function loadUnfolded(store: SessionStore): Set<string> {
  const ids = new Set<string>();
  for (const r of store.entries(UNFOLD_KIND)) if (typeof r.id === "string") ids.add(r.id);
  return ids;
}

/** Nudges by user-message key, oldest first (the first record for a key wins); malformed records are skipped. */
export function loadNudges(store: SessionStore): NudgeRecord[] {
  const seen = new Set<string>();
  const out: NudgeRecord[] = [];
  for (const r of store.entries(NUDGE_KIND)) {
    if (typeof r.key !== "string" || typeof r.text !== "string" || seen.has(r.key)) continue;
    seen.add(r.key);
    out.push({ key: r.key, text: r.text });
  }
  return out;
}
