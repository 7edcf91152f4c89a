/**
 * Binds pruning-as-context-edits (see context-edits.ts) to the pipeline: a tap at CONTEXT_STAGE.RESTORE,
 * before every other context tap, undoes this plugin's edits (the content beneath them back in place),
 * taps at PRUNE_INPUT and PRUNE_OUTPUT keep the pruner's input and output of the request, and the `contextEdits` boundary
 * turns that pair into `context_edit` drafts plus one record right after them (pi appends them in order, so
 * at the next request the record names exactly the edit entries written: see ownEditIds). The pruner is a
 * black box here.
 *
 * On pi lines without context edits (before 0.87) pi gives the context event no session entries and
 * never runs the boundary: the taps return at once and the context path is the only path.
 */
import { type AgentMessageLike, type Pipeline, CONTEXT_STAGE } from "../../core/index.ts";
import { EDITS_KIND, editsFrom, ownEditIds, undoOwnEdits } from "./context-edits.ts";

/** Sessions kept in memory at once. */
const MAX_SESSIONS = 8;

interface SessionEdits {
  /** The pruner's input of the request in progress. */
  pendingIn?: readonly AgentMessageLike[];
  /** The pruner's input and output of the last request. */
  lastIn?: readonly AgentMessageLike[];
  lastOut?: readonly AgentMessageLike[];
  /** Pruner output objects already in the session as they are (see editsFrom). */
  settled: WeakSet<object>;
}

/** What `/governor status` says about the pruning path. */
export interface ContextEditsState {
  /** A pi turn boundary with entries was seen (pi 0.87+). */
  boundarySeen: boolean;
  editsWritten: number;
  /** Messages given back the content beneath this plugin's edits in the last request. */
  lastRestored: number;
}

/**
 * Registers the taps; returns the live state for the status. Call inside the prune plugin's apply.
 * With `write` false (`contextEdits: "off"`) only the restoring tap runs: edits this plugin wrote
 * earlier in the session stay in pi's projection, and the pruner must still read what is beneath them.
 */
export function registerContextEdits(pipeline: Pipeline, owner: string, write: boolean): ContextEditsState {
  const state: ContextEditsState = { boundarySeen: false, editsWritten: 0, lastRestored: 0 };
  const sessions = new Map<string, SessionEdits>();
  const session = (id: string): SessionEdits => {
    let s = sessions.get(id);
    if (!s) {
      s = { settled: new WeakSet() };
      sessions.set(id, s);
      if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    }
    return s;
  };

  pipeline.hooks.context.tap({ name: owner, stage: CONTEXT_STAGE.RESTORE }, (messages, info) => {
    if (!info.sessionEntries || !info.sessionRecords) return undefined;
    state.lastRestored = 0;
    // This plugin's edits, by the entries its records stand right after (read from the branch each
    // request: a resumed, forked or navigated session has the edits of its own branch).
    const ours = ownEditIds(info.sessionRecords(EDITS_KIND));
    if (!ours.size) return undefined;
    const out = undoOwnEdits(messages, info.sessionEntries(), ours);
    if (out) for (let i = 0; i < out.length; i++) if (out[i] !== messages[i]) state.lastRestored++;
    return out;
  });
  if (!write) return state;
  pipeline.hooks.context.tap({ name: owner, stage: CONTEXT_STAGE.PRUNE_INPUT }, (messages, info) => {
    if (info.sessionEntries) session(info.sessionId).pendingIn = messages;
    return undefined;
  });
  pipeline.hooks.context.tap({ name: owner, stage: CONTEXT_STAGE.PRUNE_OUTPUT }, (messages, info) => {
    if (!info.sessionEntries) return undefined;
    const s = session(info.sessionId);
    s.lastIn = s.pendingIn;
    s.lastOut = messages;
    s.pendingIn = undefined;
    return undefined;
  });

  pipeline.hooks.contextEdits.tap({ name: owner, stage: CONTEXT_STAGE.PRUNE }, (drafts, info) => {
    state.boundarySeen = true;
    const s = session(info.sessionId);
    if (!s.lastIn || !s.lastOut || s.lastIn === s.lastOut) return drafts;
    const { drafts: edits, records } = editsFrom(s.lastIn, s.lastOut, info.entries(), s.settled);
    if (!edits.length) return drafts;
    state.editsWritten += edits.length;
    return [...drafts, ...edits, { type: "custom", customType: EDITS_KIND, data: { edits: records } }];
  });
  return state;
}

/** The status lines of the pruning path. */
export function contextEditsStatus(mode: "auto" | "off", state: ContextEditsState): string[] {
  if (mode === "off") return ['context event only: each request is rewritten; nothing is written to the session (prune.contextEdits is "off")'];
  if (!state.boundarySeen) return ["context event: each request is rewritten (no pi turn boundary with session entries seen yet; pi before 0.87 has none)"];
  return [
    `context edits: pruned results become pi context_edit entries at each turn end (${state.editsWritten} written by this process); each request still gets the same messages as on the context path`,
    `last request: ${state.lastRestored} message(s) given back the content beneath pruning's own edits for the pruner`,
  ];
}
