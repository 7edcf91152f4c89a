/**
 * Engine-level properties of the meaning-based pruning strategies (repeated calls, stale reads, cut
 * call arguments, failed calls) together with pins and protected paths: a real SessionPruner on a
 * memory session store, driven over growing pi-shaped sessions, one request per assistant message.
 *
 * Each property was seen failing on a deliberate break of the engine (noted above each test), then
 * the engine was restored.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessageLike, SessionStore } from "pi-governor";
import { memorySessionStore } from "../../core/services.ts";
import { blobIdPrefix } from "../../lib/blobs/index.ts";
import { ARGUMENT_MARKER_OPEN, argumentsBlobText, blobIdOf, isCutString } from "../../plugins/prune/arguments.ts";
import { bashChangedPaths } from "../../plugins/prune/bash-paths.ts";
import { pruneDefaults, type PruneOptions } from "../../plugins/prune/config.ts";
import { callPath, normalizePath, protectedPathMatcher } from "../../lib/context/index.ts";
import { USER_PIN_MARKER } from "../../plugins/prune/pin-marker.ts";
import { isPlaceholder } from "../../plugins/prune/placeholder.ts";
import { SessionPruner } from "../../plugins/prune/pruner.ts";
import { PIN_KIND, STEP_KIND } from "../../plugins/prune/records.ts";
import { canonicalJson } from "../../plugins/prune/relations.ts";
import { messageChars } from "../../plugins/prune/size.ts";
import { turnStarts } from "../../lib/context/index.ts";
import { type BuiltSession, buildSession, CWD, driveSession, PROTECTED_PATTERNS, sessionArb, usageOf } from "../helpers/prune-strategy-sessions.ts";

interface Run {
  options: PruneOptions;
  window: number;
  blobs: boolean;
}

const base: PruneOptions = { ...pruneDefaults, protectedFilePatterns: PROTECTED_PATTERNS };
/** Steps as soon as a turn leaves the protected window: every property sees pruning. */
const eagerArb: fc.Arbitrary<Run> = fc
  .record({
    keepRecentTurns: fc.integer({ min: 1, max: 3 }),
    maxToolChars: fc.constantFrom(0, 300, 1200),
    maxArgChars: fc.constantFrom(0, 200, 800, 3000),
    argExcerptChars: fc.constantFrom(20, 21, 160),
    failedArgsAfterTurns: fc.constantFrom(0, 1, 2, 4),
    dedup: fc.constantFrom(true, true, false),
    staleReads: fc.constantFrom(true, true, false),
    blobs: fc.boolean(),
  })
  .map(({ blobs, ...o }) => ({ options: { ...base, ...o, cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false }, window: 200_000, blobs }));
/** The real defaults; a small window makes adaptive mode and forced steps happen. */
const defaultsArb: fc.Arbitrary<Run> = fc
  .record({ window: fc.constantFrom(200_000, 30_000, 12_000), blobs: fc.boolean() })
  .map(({ window, blobs }) => ({ options: base, window, blobs }));
const runArb = fc.oneof({ weight: 3, arbitrary: eagerArb }, { weight: 1, arbitrary: defaultsArb });

/** PRUNE_PROPERTY_RUNS=400 runs a longer hunt (about a minute per property; raise --testTimeout). */
const NUM_RUNS = {
  numRuns: Number(process.env.PRUNE_PROPERTY_RUNS ?? 40),
  // PRUNE_PROPERTY_SEED and PRUNE_PROPERTY_PATH replay one reported counterexample.
  ...(process.env.PRUNE_PROPERTY_SEED ? { seed: Number(process.env.PRUNE_PROPERTY_SEED), path: process.env.PRUNE_PROPERTY_PATH, endOnFailure: true } : {}),
};
const j = (v: unknown) => JSON.stringify(v);
const isProtected = protectedPathMatcher(PROTECTED_PATTERNS, CWD);

type Block = { type: string; id?: string; name?: string; arguments?: Record<string, unknown>; text?: string };
const blocksOf = (m: AgentMessageLike): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : []);
const withoutContent = (m: AgentMessageLike) => j({ ...m, content: undefined });

/** Where each call of the full history sits: its block, its position among calls, its result. */
function indexCalls(history: readonly AgentMessageLike[]) {
  const calls = new Map<string, { pos: number; name: string; args: Record<string, unknown>; at: number; resultAt: number; isError: boolean }>();
  history.forEach((m, i) => {
    if (m.role === "assistant")
      for (const b of blocksOf(m))
        if (b.type === "toolCall") calls.set(b.id!, { pos: calls.size, name: b.name!, args: b.arguments!, at: i, resultAt: -1, isError: false });
    if (m.role === "toolResult") {
      const c = calls.get(String(m.toolCallId))!;
      c.resultAt = i;
      c.isError = m.isError === true;
    }
  });
  return calls;
}

/** Ids the user has pinned by the time of the request that sends history[0, point). */
function userPinsAt(session: BuiltSession, point: number): Set<string> {
  return new Set(session.pins.filter((p) => session.pinsUpFront || p.before < point).map((p) => p.toolCallId));
}

/** The result with the user-pin marker line in front, as the engine sends it. */
const userPinned = (m: AgentMessageLike) => ({ ...m, content: [{ type: "text", text: USER_PIN_MARKER }, ...blocksOf(m)] });

const pinnedOnArrival = (m: AgentMessageLike) => (m.details as { pinned?: boolean } | undefined)?.pinned === true;
const textOf = (m: AgentMessageLike) =>
  blocksOf(m)
    .map((b) => b.text ?? "")
    .join("\n");

/** Every string leaf of `args` paired with the sent one; throws when the structure differs. */
function leafPairs(orig: unknown, sent: unknown, out: Array<[string, string, string]> = [], at = ""): Array<[string, string, string]> {
  if (typeof orig === "string") {
    if (typeof sent !== "string") throw new Error(`${at}: a string became ${j(sent)}`);
    out.push([orig, sent, at]);
  } else if (orig && typeof orig === "object") {
    const keys = Object.keys(orig);
    if (!sent || typeof sent !== "object" || j(Object.keys(sent)) !== j(keys))
      throw new Error(`${at}: keys ${j(keys)} became ${j(sent && typeof sent === "object" ? Object.keys(sent) : sent)}`);
    for (const k of keys) leafPairs((orig as Record<string, unknown>)[k], (sent as Record<string, unknown>)[k], out, `${at}/${k}`);
  } else if (sent !== orig) throw new Error(`${at}: ${j(orig)} became ${j(sent)}`);
  return out;
}

const simulate = (spec: Parameters<typeof buildSession>[0], run: Run) => {
  const session = buildSession(spec);
  return { session, driven: driveSession(session, run.options, run.window, run.blobs) };
};

/** Boundary index of each request (the first message of the first kept turn; 0 before any step). */
function boundaryIndex(sent: readonly AgentMessageLike[], boundaryTurn: number): number {
  const starts = turnStarts(sent);
  return boundaryTurn < starts.length ? starts[boundaryTurn]! : sent.length;
}

/** An unpaired UTF-16 surrogate: a provider rejects it (the generated strings have none). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const DUPLICATE = /[Rr]epeated (?:later )?as (?:call )?([A-Za-z0-9_]+)/;
const STALE_FULL = /stale: (?:may have )?changed by (\w+) ([A-Za-z0-9_]+); read it again/;
const STALE_SHORT = /stale: (?:may have )?changed by (\w+) ([A-Za-z0-9_]+), read again/;

describe("pruning strategies over growing sessions (property)", () => {
  // Breaks seen failing: cutToolCallArguments returning `arguments: JSON.stringify(cutArgs)`; cutString
  // without its surrogate-pair guard on the head; thinking blocks sent with an emptied signature.
  it("1. keeps every pair valid: count, order, roles, call ids and names, parseable object arguments, one result per call, text and thinking byte-identical", () => {
    fc.assert(
      fc.property(sessionArb(), runArb, (spec, run) => {
        const { session, driven } = simulate(spec, run);
        const { history } = session;
        for (const { point, sent } of driven.requests) {
          expect(sent).toHaveLength(point);
          const resultIds = new Map<string, number>();
          sent.forEach((m, i) => {
            const o = history[i]!;
            expect(m.role).toBe(o.role);
            if (m.role === "toolResult") {
              expect(withoutContent(m)).toBe(withoutContent(o));
              resultIds.set(String(m.toolCallId), (resultIds.get(String(m.toolCallId)) ?? 0) + 1);
            } else if (m.role === "assistant") {
              expect(withoutContent(m)).toBe(withoutContent(o));
              const ob = blocksOf(o);
              const sb = blocksOf(m);
              expect(sb).toHaveLength(ob.length);
              sb.forEach((b, k) => {
                if (b.type !== "toolCall") return expect(j(b)).toBe(j(ob[k]));
                expect(j({ ...b, arguments: undefined })).toBe(j({ ...ob[k], arguments: undefined }));
                const proto = Object.getPrototypeOf(b.arguments);
                expect(proto === Object.prototype || proto === null).toBe(true);
                expect(j(JSON.parse(j(b.arguments)))).toBe(j(b.arguments));
                for (const [, cut, at] of leafPairs(ob[k]!.arguments, b.arguments))
                  if (LONE_SURROGATE.test(cut)) expect.fail(`${b.id}${at}: an unpaired surrogate`);
              });
            } else expect(j(m)).toBe(j(o));
          });
          const callIds = sent.flatMap((m) =>
            m.role === "assistant"
              ? blocksOf(m)
                  .filter((b) => b.type === "toolCall")
                  .map((b) => b.id!)
              : [],
          );
          expect(new Set(callIds).size).toBe(callIds.length);
          expect(resultIds.size).toBe(callIds.length);
          for (const id of callIds) expect(resultIds.get(id), id).toBe(1);
        }
      }),
      NUM_RUNS,
    );
  });

  // Breaks seen failing: decideResult without its protected-path check; decide() without its
  // pinned-on-arrival check; decideArguments cutting the calls of pinned results.
  it("2. never touches pinned results (a user pin adds only its marker line) nor calls and results on protected paths", () => {
    fc.assert(
      fc.property(sessionArb(), runArb, (spec, run) => {
        const { session, driven } = simulate(spec, run);
        const { history } = session;
        const calls = indexCalls(history);
        for (const { point, sent } of driven.requests) {
          const pins = userPinsAt(session, point);
          const keptCalls = new Set<string>();
          sent.forEach((m, i) => {
            const o = history[i]!;
            if (o.role !== "toolResult") return;
            const id = String(o.toolCallId);
            const path = callPath(calls.get(id)!.args);
            const onProtected = path !== undefined && isProtected(path);
            // A user pin wins over a protected path: its marker line is the one change allowed.
            if (pinnedOnArrival(o)) expect(j(m), id).toBe(j(o));
            else if (pins.has(id)) expect([j(o), j(userPinned(o))], id).toContain(j(m));
            else if (onProtected) expect(j(m), id).toBe(j(o));
            else return;
            keptCalls.add(id);
          });
          sent.forEach((m, i) => {
            if (m.role !== "assistant") return;
            blocksOf(m).forEach((b, k) => {
              if (b.type === "toolCall" && keptCalls.has(b.id!)) expect(j(b), b.id).toBe(j(blocksOf(history[i]!)[k]));
            });
          });
        }
      }),
      NUM_RUNS,
    );
  });

  // Breaks seen failing: relationPlaceholder without the blob_read of a result with a blob id; a cut
  // marker naming the blob id of another text than the stored arguments.
  it("3. gives every replaced result and every cut argument a way back", () => {
    fc.assert(
      fc.property(sessionArb(), runArb, (spec, run) => {
        const { session, driven } = simulate(spec, run);
        const { history } = session;
        const callIndex = indexCalls(history);
        for (const { point, sent } of driven.requests) {
          const pins = userPinsAt(session, point);
          sent.forEach((m, i) => {
            const o = history[i]!;
            if (j(m) === j(o)) return;
            if (m.role === "toolResult") {
              if (pins.has(String(o.toolCallId))) return; // property 2: the marker line only
              const content = blocksOf(m);
              expect(content).toHaveLength(1);
              const text = content[0]!.text!;
              expect(isPlaceholder(text)).toBe(true);
              expect(text).toContain(`${String(o.toolName)}(`);
              expect(messageChars(m)).toBeLessThan(messageChars(o));
              const blobId = (o.details as { blobId?: string }).blobId;
              if (blobId) expect(text).toContain(`blob_read({"blobId":"${blobIdPrefix(blobId)}"})`);
              else expect(text).toMatch(/re-run|re-read|repeated (later )?as (call )?\S+|read (it )?again/i);
              return;
            }
            expect(m.role).toBe("assistant");
            blocksOf(m).forEach((b, k) => {
              const ob = blocksOf(o)[k]!;
              if (b.type !== "toolCall") return;
              const path = callPath(ob.arguments);
              for (const [before, after, at] of leafPairs(ob.arguments, b.arguments)) {
                if (before === after) continue;
                expect(isCutString(after), at).toBe(true);
                const open = after.indexOf(ARGUMENT_MARKER_OPEN);
                const close = after.lastIndexOf("]…");
                expect(open).toBeGreaterThanOrEqual(0);
                // The start and the end of the original stay around the marker.
                expect(before.startsWith(after.slice(0, open))).toBe(true);
                expect(before.endsWith(after.slice(close + 2))).toBe(true);
                const marker = after.slice(open, close + 1);
                if (run.blobs) expect(marker).toContain(`blob_read({"blobId":"${blobIdPrefix(blobIdOf(argumentsBlobText(ob.arguments)))}"})`);
                else if (path !== undefined && !callIndex.get(b.id!)!.isError) expect(marker).toContain(`${j(path)}: read the file`);
                else expect(marker).toContain("kept in the session file");
              }
            });
          });
        }
      }),
      NUM_RUNS,
    );
  });

  // Break seen failing: loadPins skipping every record (user pins lost on reload).
  it("4. is deterministic and reload-safe: a fresh pruner on the same store and the same context again send the same bytes", () => {
    fc.assert(
      fc.property(sessionArb(), runArb, (spec, run) => {
        const { session, driven } = simulate(spec, run);
        const last = driven.requests.at(-1);
        if (!last) return;
        const context = () => structuredClone(session.history.slice(0, last.point));
        const expected = j(last.sent);
        // The same pruner, the same context again: identical (unless it steps now, which the report says).
        const again = driven.pruner.run(context(), usageOf(run.window));
        if (!driven.pruner.lastReport!.stepped) expect(j(again), "the same context again").toBe(expected);
        // A reloaded pruner: only the store survives.
        const store = copyStore(driven.store);
        const reloaded = new SessionPruner(run.options, () => store, undefined, run.blobs ? { cwd: CWD, blobWriter: driven.env.blobWriter! } : { cwd: CWD });
        const first = reloaded.run(context(), usageOf(run.window));
        if (!driven.pruner.lastReport!.stepped) {
          expect(reloaded.lastReport!.stepped, "a reloaded pruner steps").toBe(false);
          expect(j(first), "a reloaded pruner").toBe(expected);
        }
        expect(j(reloaded.run(context(), usageOf(run.window))), "a reloaded pruner, again").toBe(j(first));
        // Not checked: that a pruner given its own output sends it unchanged. pi hands the hook the
        // session's originals on every call, never what was sent, and a placeholder built from already
        // cut arguments can be shorter than one built from the originals (so it may replace a result
        // the original placeholder could not).
      }),
      NUM_RUNS,
    );
  });

  // The exact rule: between consecutive requests, a message the earlier one sent is sent again
  // byte-identical unless this request stepped (lastReport.stepped) or the user pinned one of its calls
  // since (then the original comes back, the result with its marker line). A change at a step turns an
  // original result into a placeholder (never one placeholder into another) and original tool-call
  // blocks into cut ones (never a cut block into another); an assistant message already sent with cuts
  // changes again only by cutting more blocks, each of a failed call (failedArgsAfterTurns later).
  // Break seen failing: prefixAt judging every message by messages[0, current boundary) (frozenAt(i, m,
  // 0, boundary)) instead of its own step's range: a generic placeholder became a duplicate one later.
  it("5. changes an already-sent message only at a step (or for a user pin), from original to replacement; a cut message changes again only by cutting a failed call", () => {
    fc.assert(
      fc.property(sessionArb(), runArb, (spec, run) => {
        const { session, driven } = simulate(spec, run);
        const { history } = session;
        const calls = indexCalls(history);
        let previous: AgentMessageLike[] | undefined;
        for (const { sent, report, newPins } of driven.requests) {
          if (previous) {
            for (let i = 0; i < previous.length; i++) {
              const a = previous[i]!;
              const b = sent[i]!;
              if (j(a) === j(b)) continue;
              const o = history[i]!;
              const pinTouched =
                o.role === "toolResult" ? newPins.includes(String(o.toolCallId)) : blocksOf(o).some((x) => x.type === "toolCall" && newPins.includes(x.id!));
              if (pinTouched) {
                // A new user pin brings the original back (with its marker line on the result).
                expect(j(b)).toBe(j(o.role === "toolResult" ? userPinned(o) : b));
                if (o.role === "assistant")
                  blocksOf(b).forEach((x, k) => x.type === "toolCall" && newPins.includes(x.id!) && expect(j(x)).toBe(j(blocksOf(o)[k])));
                continue;
              }
              expect(report.stepped, `message ${i} changed without a step`).toBe(true);
              if (o.role === "toolResult") {
                expect(j(a), `message ${i}: a replacement replaced again`).toBe(j(o));
                continue;
              }
              expect(o.role).toBe("assistant");
              const wasCut = j(a) !== j(o);
              blocksOf(b).forEach((x, k) => {
                const before = blocksOf(a)[k]!;
                if (j(x) === j(before)) return;
                expect(j(before), `message ${i} block ${k}: a cut cut again`).toBe(j(blocksOf(o)[k]));
                if (wasCut) expect(calls.get(x.id!)!.isError, `message ${i}: a cut message changed again by a call that did not fail`).toBe(true);
              });
            }
          }
          previous = sent;
        }
      }),
      NUM_RUNS,
    );
  });

  // Break seen failing: markDuplicates keyed by the tool name alone (any later call of the tool superseded).
  it("6. names, for a duplicate, a later call with the same name and canonical arguments, and marks stale only a read of a file a later call changed, within the step's own range", () => {
    const seen = { duplicate: 0, stale: 0, cuts: 0, failedCuts: 0 };
    const property = fc.property(sessionArb(), runArb, (spec, run) => {
      const { session, driven } = simulate(spec, run);
      const { history } = session;
      const calls = indexCalls(history);
      // Boundaries the session stepped to, ascending: the step covering message i is the first above it.
      const boundaries = [...new Set(driven.requests.map((r) => boundaryIndex(r.sent, r.report.boundaryTurn)))].filter((b) => b > 0);
      for (const { sent } of driven.requests) {
        sent.forEach((m, i) => {
          const o = history[i]!;
          if (m.role === "assistant" && j(m) !== j(o)) {
            seen.cuts++;
            if (blocksOf(m).some((b, k) => b.type === "toolCall" && calls.get(b.id!)!.isError && j(b) !== j(blocksOf(o)[k]))) seen.failedCuts++;
          }
          if (m.role !== "toolResult" || j(m) === j(o)) return;
          const text = textOf(m);
          const older = calls.get(String(o.toolCallId))!;
          const k = boundaries.findIndex((b) => b > i);
          expect(k, `message ${i} replaced before any step covered it`).toBeGreaterThanOrEqual(0);
          const [from, upTo] = [k > 0 ? boundaries[k - 1]! : 0, boundaries[k]!];
          const dup = DUPLICATE.exec(text);
          if (dup) {
            seen.duplicate++;
            const newer = calls.get(dup[1]!)!;
            expect(newer.name).toBe(older.name);
            expect(canonicalJson(newer.args)).toBe(canonicalJson(older.args));
            expect(newer.pos).toBeGreaterThan(older.pos);
            expect(newer.resultAt).toBeLessThan(upTo);
            expect(newer.at).toBeGreaterThanOrEqual(from);
          }
          const stale = STALE_FULL.exec(text) ?? STALE_SHORT.exec(text);
          if (/stale/i.test(text) || /read (it )?again/.test(text)) {
            expect(stale, text).not.toBeNull();
            seen.stale++;
            const changedBy = stale!.length === 4 ? stale![3]! : stale![2]!;
            const changer = calls.get(changedBy)!;
            expect(run.options.readTools).toContain(older.name);
            const path = normalizePath(callPath(older.args)!, CWD);
            if (stale!.length === 4) expect(stale![1]).toBe(path);
            expect(changer.pos).toBeGreaterThan(older.pos);
            expect(changer.resultAt).toBeLessThan(upTo);
            expect(changer.at).toBeGreaterThanOrEqual(from);
            if (changer.name === "bash") expect(bashChangedPaths(String(changer.args.command)).map((p) => normalizePath(p, CWD))).toContain(path);
            else {
              expect(run.options.writeTools).toContain(changer.name);
              expect(changer.isError).toBe(false);
              expect(normalizePath(callPath(changer.args)!, CWD)).toBe(path);
            }
          }
        });
      }
    });
    fc.assert(property, NUM_RUNS);
    // The generator reaches every strategy, so the checks above are never vacuous (typical counts per
    // 40 runs: 10-100 duplicates, 20-50 stale reads, hundreds of cuts, 5-70 failed-call cuts). A random
    // seed can fall short (2 stale reads in 40 runs was seen): a fixed seed then tops the counts up, so
    // the guard is deterministic and the random runs still explore.
    const enough = () => seen.duplicate > 3 && seen.stale > 3 && seen.cuts > 10 && seen.failedCuts > 0;
    if (!enough() && !process.env.PRUNE_PROPERTY_SEED) fc.assert(property, { numRuns: 40, seed: 20261127 });
    expect(seen.duplicate).toBeGreaterThan(3);
    expect(seen.stale).toBeGreaterThan(3);
    expect(seen.cuts).toBeGreaterThan(10);
    expect(seen.failedCuts).toBeGreaterThan(0);
  });
});

/** A new memory store holding the steps and pins of `store` (what a reload reads back). */
function copyStore(store: SessionStore): SessionStore {
  const copy = memorySessionStore();
  for (const kind of [STEP_KIND, PIN_KIND]) for (const r of store.entries(kind)) copy.append(kind, { ...r });
  return copy;
}
