/**
 * Links the caller's AbortSignal (pi's, aborted on Esc) to the attempts running under it, with ONE
 * listener per caller signal however many calls share it.
 *
 * Why not `addEventListener` per attempt: a long-lived signal shared by many calls is exactly what
 * pi passes (one per agent turn), and per-call add/remove costs ~0.3 us while a forgotten remove
 * grows the listener list without bound (the MCP SDK's own bug the timeout plugin works around). Here
 * the first attempt under a signal installs a single `once` listener; later attempts join a Set. The
 * WeakMap lets the entry die with the signal.
 *
 * Not the same job as lib/mcp/child-signal-pool.ts: that one hands the MCP SDK a real AbortSignal per
 * call (the SDK adds listeners to it) and must leave the parent with no listener once the call ends;
 * here nothing needs a signal of its own, only a callback, so one listener per parent suffices.
 */

/** Something that wants to hear when its caller's signal aborts. */
export interface CallerAbortListener {
  onCallerAbort(reason: unknown): void;
}

/** Members of one caller signal; the set is handed back so leaving needs no second lookup. */
export type LinkSet = Set<CallerAbortListener>;

const links = new WeakMap<AbortSignal, LinkSet>();

/**
 * Adds `member` to the attempts notified when `signal` aborts. The caller must check
 * `signal.aborted` first (an aborted signal never fires again). Returns the set to leave with
 * {@link unlinkCaller}.
 */
export function linkCaller(signal: AbortSignal, member: CallerAbortListener): LinkSet {
  let set = links.get(signal);
  if (set === undefined) {
    const members: LinkSet = new Set();
    set = members;
    links.set(signal, members);
    signal.addEventListener(
      "abort",
      () => {
        const reason = signal.reason;
        // Copy first: a member's handler leaves the set while we iterate.
        const current = [...members];
        members.clear();
        for (const m of current) m.onCallerAbort(reason);
      },
      { once: true },
    );
  }
  set.add(member);
  return set;
}

/** Removes `member` again (after the attempt settled). Cheap: one Set delete. */
export function unlinkCaller(set: LinkSet, member: CallerAbortListener): void {
  set.delete(member);
}

/** Attempts currently linked to `signal` (tests and diagnostics). */
export function linkedCount(signal: AbortSignal): number {
  return links.get(signal)?.size ?? 0;
}
