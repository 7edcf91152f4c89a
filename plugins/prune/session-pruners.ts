/**
 * The pruners of the sessions seen lately: one per session and distinct effective options (a session
 * that switches models may need other thresholds), in bounded maps.
 *
 * Every pruner of a session reads the same persisted records (boundary steps, pins) when it is built.
 * Each pruner writes through a store that counts its writes, so a kept pruner that has not seen the
 * session's latest record is rebuilt from the store when the session comes back to it: the boundary
 * and the pins carry across model switches.
 */
import type { SessionStore } from "../../core/index.ts";
import type { PruneOptions } from "./config.ts";
import type { ModelSettings } from "./per-model.ts";
import type { SessionPruner } from "./pruner.ts";

interface Slot {
  pruner: SessionPruner | undefined;
  /** The session's record version this pruner has loaded or written. */
  seen: number;
}

interface SessionEntry {
  slots: Map<string, Slot>;
  /** Bumped whenever a pruner of the session persisted a record. */
  version: number;
  current: Slot | undefined;
  settings: ModelSettings | undefined;
}

/** Sessions kept in memory at once (older ones are rebuilt from the store). */
const MAX_SESSIONS = 8;
/** Distinct effective options kept per session. */
const MAX_OPTIONS_PER_SESSION = 4;

/** Bounded pruners by session and effective options. */
export class SessionPruners {
  private readonly sessions = new Map<string, SessionEntry>();

  /**
   * `create` builds a pruner that reads and writes its records through the store it is given;
   * `store` is the attached session's store.
   */
  constructor(
    private readonly create: (options: PruneOptions, store: () => SessionStore) => SessionPruner,
    private readonly store: () => SessionStore,
  ) {}

  private entry(sessionId: string): SessionEntry {
    let e = this.sessions.get(sessionId);
    if (!e) {
      e = { slots: new Map(), version: 0, current: undefined, settings: undefined };
      this.sessions.set(sessionId, e);
      if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    }
    return e;
  }

  /** The pruner for `sessionId` under `settings` (built, or rebuilt when stale); it becomes current. */
  use(sessionId: string, settings: ModelSettings): SessionPruner {
    const e = this.entry(sessionId);
    e.settings = settings;
    let slot = e.slots.get(settings.signature);
    if (slot && slot.seen !== e.version) {
      e.slots.delete(settings.signature);
      slot = undefined;
    }
    if (!slot) {
      const made: Slot = { pruner: undefined, seen: e.version };
      const session = e;
      // A write by this pruner is the session's newest record, and this pruner has seen it.
      const counting = (): SessionStore => {
        const s = this.store();
        return {
          append: (kind, data) => {
            s.append(kind, data);
            session.version++;
            made.seen = session.version;
          },
          entries: (kind) => s.entries(kind),
        };
      };
      made.pruner = this.create(settings.options, counting);
      slot = made;
      e.slots.set(settings.signature, slot);
      if (e.slots.size > MAX_OPTIONS_PER_SESSION) e.slots.delete(e.slots.keys().next().value!);
    }
    e.current = slot;
    return slot.pruner!;
  }

  /** Notes the settings of a call that did not prune (the model has pruning off). */
  skip(sessionId: string, settings: ModelSettings): void {
    this.entry(sessionId).settings = settings;
  }

  /** The session's last used pruner and the settings of its last call. */
  current(sessionId: string): { pruner: SessionPruner | undefined; settings: ModelSettings | undefined } {
    const e = this.sessions.get(sessionId);
    return { pruner: e?.current?.pruner, settings: e?.settings };
  }
}
