/**
 * What the host hands plugins: sleep on an injected clock (timer and listener removed on every path),
 * the structured logger, the in-memory session store, the silent UI and service names.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { createLogger, defineService, type LogRecord, memorySessionStore, silentUi, sleep, systemClock } from "../../../core/services.ts";
import { ManualClock } from "pi-governor/testing";

describe("sleep", () => {
  it("resolves after the delay on the given clock, not before", async () => {
    const clock = new ManualClock();
    let done = false;
    const p = sleep(clock, 500).then(() => void (done = true));
    await clock.advance(499);
    expect(done).toBe(false);
    await clock.advance(1);
    await p;
    expect(done).toBe(true);
    expect(clock.requested).toEqual([500]);
  });

  it("resolves at once for zero or a negative delay, without a timer", async () => {
    const clock = new ManualClock();
    await sleep(clock, 0);
    await sleep(clock, -5);
    expect(clock.requested).toEqual([]);
  });

  it("rejects with the signal's reason on abort, clearing its timer; an aborted signal rejects before any timer", async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = sleep(clock, 1_000, ac.signal);
    expect(clock.pending).toBe(1);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    expect(clock.pending).toBe(0);
    await expect(sleep(clock, 1_000, AbortSignal.abort("early"))).rejects.toBe("early");
    expect(clock.requested).toEqual([1_000]);
  });

  it("removes its abort listener when the delay ends", async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = sleep(clock, 10, ac.signal);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    await clock.advance(10);
    await p;
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("the system clock is monotonic and its timers run", async () => {
    const a = systemClock.now();
    await sleep(systemClock, 5);
    expect(systemClock.now()).toBeGreaterThan(a);
  });
});

describe("createLogger", () => {
  it("sends one record per call with level, source, message, time and data only when given; a child names its own source", () => {
    const records: LogRecord[] = [];
    const log = createLogger("governor:prune", (r) => records.push(r));
    const before = Date.now();
    log.info("pruned", { saved: 3 });
    log.child("governor:fold").warn("no ranges");
    log.debug("d");
    log.error("e");
    expect(records.map(({ at: _at, ...r }) => r)).toEqual([
      { level: "info", source: "governor:prune", message: "pruned", data: { saved: 3 } },
      { level: "warn", source: "governor:fold", message: "no ranges" },
      { level: "debug", source: "governor:prune", message: "d" },
      { level: "error", source: "governor:prune", message: "e" },
    ]);
    for (const r of records) expect(r.at).toBeGreaterThanOrEqual(before);
  });
});

describe("memorySessionStore", () => {
  it("keeps records per kind, oldest first, and hands out copies of the list", () => {
    const store = memorySessionStore();
    store.append("governor:pin", { id: 1 });
    store.append("governor:boundary", { at: 4 });
    store.append("governor:pin", { id: 2 });
    expect(store.entries("governor:pin")).toEqual([{ id: 1 }, { id: 2 }]);
    expect(store.entries("governor:boundary")).toEqual([{ at: 4 }]);
    expect(store.entries("unknown")).toEqual([]);
    store.entries("governor:pin").push({ id: 99 });
    expect(store.entries("governor:pin")).toHaveLength(2);
  });
});

describe("silentUi", () => {
  it("has no UI, shows nothing and answers no to a confirmation", async () => {
    expect(silentUi.hasUI).toBe(false);
    expect(() => silentUi.notify("x", "error")).not.toThrow();
    await expect(silentUi.confirm("delete?", "really")).resolves.toBe(false);
  });
});

describe("defineService", () => {
  it("makes a frozen key with a namespaced name and, when given, who provides it", () => {
    const key = defineService<number>("acme:index", { providedBy: "acme:indexer" });
    expect(key).toEqual({ name: "acme:index", providedBy: "acme:indexer" });
    expect(Object.isFrozen(key)).toBe(true);
    expect(defineService("kota:runtime.v2")).toEqual({ name: "kota:runtime.v2" });
  });

  it("refuses names that are not scope:name", () => {
    for (const bad of ["index", ":index", "acme:", "acme:in dex", "a/b:c", "acme:x\n", "acme:x:y"]) {
      expect(() => defineService(bad), JSON.stringify(bad)).toThrow(/must be namespaced as scope:name/);
    }
  });
});
