/**
 * fast-check arbitraries of pi-shaped sessions for the meaning-based pruning strategies (repeated
 * calls, stale reads, cut call arguments, failed calls, pins, protected paths), and a driver that
 * sends a growing session through one real `SessionPruner` the way pi does: one request before every
 * assistant message, each a fresh deep copy of the history so far.
 */
import fc from "fast-check";
import type { AgentMessageLike, SessionStore } from "pi-governor";
import { memorySessionStore } from "../../core/services.ts";
import { ArgumentBlobWriter } from "../../plugins/prune/argument-blobs.ts";
import type { PruneOptions } from "../../plugins/prune/config.ts";
import { PIN_MARKER } from "../../plugins/prune/pin-marker.ts";
import { type CallReport, SessionPruner } from "../../plugins/prune/pruner.ts";
import { PIN_KIND } from "../../plugins/prune/records.ts";
import { requestPoints } from "./prune-sessions.ts";

/** The session's cwd: some paths are spelled absolute under it. */
export const CWD = "/home/u/proj";
/** protectedFilePatterns of every run. */
export const PROTECTED_PATTERNS = ["AGENTS.md", "secret/**"];
/** Files the calls name; AGENTS.md (any folder) and secret/** are protected. */
export const PATHS = ["src/a.ts", "src/b.ts", "lib/c.ts", "AGENTS.md", "docs/AGENTS.md", "secret/k.pem"] as const;

/** `failedEdit`: an edit whose result is an error (oldText not found), the common failure. */
type CallKind = "read" | "edit" | "failedEdit" | "write" | "bash" | "grep" | "repeat";

interface CallSpec {
  kind: CallKind;
  path: number;
  /** 0: as is, 1: "./" prefix, 2: absolute under CWD. */
  spelling: number;
  /** bash: 0 `sed -i`, 1 `cat`, 2 redirect into the path, 3 `cat | head`, 4 names no file. */
  bash: number;
  /** Long string arguments (write content, edit oldText/newText), characters. */
  long: number;
  long2: number;
  /** Result text, characters. */
  size: number;
  isError: boolean;
  pinned: boolean;
  blob: boolean;
  /** repeat: which earlier call (modulo the calls so far); its arguments with the keys reversed when `swap`. */
  repeat: number;
  swap: boolean;
}
interface RoundSpec {
  thinking: boolean;
  calls: CallSpec[];
}
interface TurnSpec {
  /** The user pins a result before this turn (index modulo the results so far). */
  pin: number | null;
  rounds: RoundSpec[];
}
/** A generated session: the turns, and whether user pins are persisted up front (a resumed session). */
export interface SessionSpec {
  turns: TurnSpec[];
  pinsUpFront: boolean;
}

const rare = (oneIn: number) => fc.integer({ min: 0, max: oneIn - 1 }).map((n) => n === 0);

const callArb: fc.Arbitrary<CallSpec> = fc.record({
  kind: fc.constantFrom<CallKind>("read", "read", "read", "edit", "failedEdit", "write", "bash", "bash", "grep", "repeat", "repeat"),
  path: fc.constantFrom(0, 0, 0, 1, 1, 2, 3, 4, 5),
  spelling: fc.constantFrom(0, 0, 0, 1, 2),
  bash: fc.integer({ min: 0, max: 4 }),
  long: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 200, max: 6000 })),
  long2: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 200, max: 3000 })),
  size: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 400, max: 4000 })),
  isError: rare(5),
  pinned: rare(8),
  blob: rare(4),
  repeat: fc.nat(),
  swap: fc.boolean(),
});

/** Sessions of 1 to `maxTurns` turns of 0 to 3 rounds of 1 or 2 calls. */
export function sessionArb(maxTurns = 14): fc.Arbitrary<SessionSpec> {
  return fc.record({
    turns: fc.array(
      fc.record({
        pin: fc.option(fc.nat(), { freq: 3 }),
        rounds: fc.array(fc.record({ thinking: fc.boolean(), calls: fc.array(callArb, { minLength: 1, maxLength: 2 }) }), { maxLength: 4 }),
      }),
      { minLength: 1, maxLength: maxTurns },
    ),
    pinsUpFront: rare(3),
  });
}

/** Text of about `n` characters (well-formed UTF-16: surrogate pairs are never split). */
export function longText(n: number, seed: number): string {
  const units = [`const value${seed} = compute(${seed});\n`, '😀 ünïcödé — "quoted" \\ line\n', "\tx\n", "😀😀😀😀x😀😀😀😀\n"];
  let s = "";
  for (let k = 0; s.length < n; k++) s += units[(seed + k) % units.length];
  return s;
}

function spell(path: string, spelling: number): string {
  return spelling === 1 ? `./${path}` : spelling === 2 ? `${CWD}/${path}` : path;
}

/** A user pin: before the request at history index `before`, pin this result. */
export interface UserPin {
  before: number;
  toolCallId: string;
  toolName: string;
}

/** A built session: the full history and the user pins. */
export interface BuiltSession {
  history: AgentMessageLike[];
  pins: UserPin[];
  pinsUpFront: boolean;
}

/** Builds the history of a spec (deterministic; unique ids and timestamps; every call gets its result). */
export function buildSession(spec: SessionSpec): BuiltSession {
  const history: AgentMessageLike[] = [];
  const pins: UserPin[] = [];
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const results: Array<{ id: string; name: string }> = [];
  let t = 1_750_000_000_000;
  let n = 0;
  spec.turns.forEach((turn, ti) => {
    if (turn.pin !== null && results.length) {
      const r = results[turn.pin % results.length]!;
      pins.push({ before: history.length, toolCallId: r.id, toolName: r.name });
    }
    history.push({ role: "user", content: [{ type: "text", text: `task ${ti}: change module ${ti % 3}` }], timestamp: t++ });
    for (const round of turn.rounds) {
      const blocks: unknown[] = [];
      if (round.thinking) blocks.push({ type: "thinking", thinking: `plan for ${ti}: ${longText(40 + ti, ti)}`, thinkingSignature: `sig-${ti}-${n}==` });
      blocks.push({ type: "text", text: `working on ${ti}` });
      const made: Array<{ id: string; name: string; args: Record<string, unknown>; c: CallSpec }> = [];
      for (const c of round.calls) {
        const id = `call_${++n}`;
        const path = spell(PATHS[c.path]!, c.spelling);
        let name: string;
        let args: Record<string, unknown>;
        if (c.kind === "repeat" && calls.length) {
          const earlier = calls[c.repeat % calls.length]!;
          name = earlier.name;
          args = structuredClone(c.swap ? Object.fromEntries(Object.entries(earlier.args).reverse()) : earlier.args);
        } else if (c.kind === "edit" || c.kind === "failedEdit") {
          name = "edit";
          args = { path, oldText: longText(c.long2, n), newText: longText(c.long, n + 1) };
        } else if (c.kind === "write") {
          name = "write";
          args = { path, content: longText(c.long, n) };
        } else if (c.kind === "bash") {
          name = "bash";
          args = {
            command: [`sed -i 's/old/new/' ${path}`, `cat ${path}`, `echo done > ${path}`, `cat ${path} | head -5`, "rg -n compute src"][c.bash]!,
            timeout: 30,
          };
        } else if (c.kind === "grep") {
          name = "grep";
          args = { pattern: "compute", path: "src" };
        } else {
          name = "read";
          args = { path };
        }
        calls.push({ name, args });
        blocks.push({ type: "toolCall", id, name, arguments: args });
        made.push({ id, name, args, c });
      }
      history.push({ role: "assistant", content: blocks as never, timestamp: t++, stopReason: "toolUse" });
      for (const { id, name, args, c: spec } of made) {
        const c = spec.kind === "failedEdit" ? { ...spec, isError: true } : spec;
        const body = c.isError
          ? `Error: ${name} failed: ${longText(c.size % 1500, n)}`
          : name === "read"
            ? `${String(args.path)}\n${longText(c.size, n)}`
            : name === "edit" || name === "write"
              ? `Successfully changed ${String(args.path)}.`
              : longText(c.size, n);
        const content: unknown[] = [{ type: "text", text: body }];
        const details: Record<string, unknown> = {};
        if (c.pinned) {
          content.unshift({ type: "text", text: PIN_MARKER });
          details.pinned = true;
        }
        if (c.blob)
          Object.assign(details, { truncated: true, blobId: `blob${id}`, blobPath: `/tmp/blob${id}`, originalBytes: c.size * 3, excerptBytes: c.size });
        history.push({ role: "toolResult", toolCallId: id, toolName: name, content: content as never, details, isError: c.isError, timestamp: t++ });
        results.push({ id, name });
      }
    }
    history.push({ role: "assistant", content: [{ type: "text", text: `done ${ti}` }], timestamp: t++, stopReason: "stop" });
  });
  return { history, pins, pinsUpFront: spec.pinsUpFront };
}

/** One request of a driven session. */
export interface SentRequest {
  /** Messages of the history sent (history.slice(0, point)). */
  point: number;
  sent: AgentMessageLike[];
  report: CallReport;
  /** Tool call ids the user pinned since the previous request. */
  newPins: string[];
}

/** A driven session: every request, the store (steps and pins) and the pruner. */
export interface DrivenSession {
  requests: SentRequest[];
  store: SessionStore;
  pruner: SessionPruner;
  /** The environment the pruner was built with (a reloaded pruner gets the same). */
  env: { cwd: string; blobWriter?: ArgumentBlobWriter };
}

/** Usage as pi reports it: the window, no token count. */
export const usageOf = (contextWindow: number) => ({ tokens: null, contextWindow, percent: null });

/**
 * Sends `session` through a real SessionPruner: before each assistant message, a request with a fresh
 * structuredClone of the history so far. User pins go through `pruner.pin` before the request they
 * precede, or all into the store before the first request when `pinsUpFront`. `blobs`: a blob writer
 * without a store, so cut markers name blob_read (the ids are content addresses, checked by callers).
 */
export function driveSession(session: BuiltSession, options: PruneOptions, contextWindow: number, blobs: boolean): DrivenSession {
  const store = memorySessionStore();
  if (session.pinsUpFront) for (const p of session.pins) store.append(PIN_KIND, { toolCallId: p.toolCallId, toolName: p.toolName });
  const env = { cwd: CWD, ...(blobs ? { blobWriter: new ArgumentBlobWriter(undefined) } : {}) };
  const pruner = new SessionPruner(options, () => store, undefined, env);
  const requests: SentRequest[] = [];
  let pinned = 0;
  for (const point of requestPoints(session.history)) {
    const newPins: string[] = [];
    if (!session.pinsUpFront) {
      for (; pinned < session.pins.length && session.pins[pinned]!.before < point; pinned++) {
        const p = session.pins[pinned]!;
        if (pruner.pin(p.toolCallId, p.toolName)) newPins.push(p.toolCallId);
      }
    }
    const sent = pruner.run(structuredClone(session.history.slice(0, point)), usageOf(contextWindow));
    requests.push({ point, sent, report: { ...pruner.lastReport! }, newPins });
  }
  return { requests, store, pruner, env };
}
