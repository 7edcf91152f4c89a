import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, messageMeta } from "pi-governor";
import { bashChangedPaths } from "../../plugins/prune/bash-paths.ts";
import { callPath, normalizePath, protectedPathMatcher } from "../../lib/context/index.ts";
import { isPrunedMessage, markPruned } from "../../plugins/prune/pruned-mark.ts";
import { canonicalJson, type RelationOptions, resultRelations } from "../../plugins/prune/relations.ts";

const CWD = "/home/u/p";
const PATHS = ["src/a.ts", "src/a.tsx", "lib/b.ts", "secret/k.pem"] as const;
const options: RelationOptions = {
  dedup: true,
  staleReads: true,
  readTools: new Set(["read"]),
  writeTools: new Set(["edit", "write"]),
  isProtected: protectedPathMatcher(["secret/**"], CWD),
  cwd: CWD,
};

interface CallSpec {
  tool: "read" | "edit" | "write" | "bash" | "ls";
  path: number;
  /** 0: as is, 1: "./" prefix, 2: absolute under CWD. */
  spelling: number;
  /** bash: 0 read-only (cat), 1 sed -i, 2 redirect into the path, 3 names a longer path. */
  bash: number;
  swapKeys: boolean;
  isError: boolean;
  pinned: boolean;
  placeholder: boolean;
}

const callArb: fc.Arbitrary<CallSpec> = fc.record({
  tool: fc.constantFrom("read", "read", "edit", "write", "bash", "ls"),
  path: fc.integer({ min: 0, max: PATHS.length - 1 }),
  spelling: fc.constantFrom(0, 0, 0, 1, 2),
  bash: fc.integer({ min: 0, max: 3 }),
  swapKeys: fc.boolean(),
  isError: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  pinned: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  placeholder: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
});
/** Rounds of 1 or 2 calls; a user message starts some rounds. */
const roundsArb = fc.array(fc.record({ user: fc.boolean(), calls: fc.array(callArb, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 25 });

function spell(path: string, spelling: number): string {
  return spelling === 1 ? `./${path}` : spelling === 2 ? `${CWD}/${path}` : path;
}

function argsOf(c: CallSpec): Record<string, unknown> {
  const path = spell(PATHS[c.path]!, c.spelling);
  switch (c.tool) {
    case "read":
      return c.swapKeys ? { limit: 50, path } : { path, limit: 50 };
    case "ls":
      return { path: PATHS[c.path]!.split("/")[0] };
    case "edit":
      return c.swapKeys ? { newText: "y", oldText: "x", path } : { path, oldText: "x", newText: "y" };
    case "write":
      return { path, content: `v${c.path}` };
    case "bash":
      return { command: [`cat ${path} | head`, `sed -i 's/a/b/' ${path}`, `echo x > '${path}'`, `rm ${path}.bak`][c.bash]! };
  }
}

/** The messages of `rounds`, call ids prefixed with `tag` so two histories never share one. */
function build(rounds: ReadonlyArray<{ user: boolean; calls: CallSpec[] }>, tag = "c"): AgentMessageLike[] {
  const out: AgentMessageLike[] = [];
  let n = 0;
  rounds.forEach((round, r) => {
    if (round.user || r === 0) out.push({ role: "user", content: `step ${r}` });
    const ids = round.calls.map(() => `${tag}${++n}`);
    out.push({ role: "assistant", content: round.calls.map((c, k) => ({ type: "toolCall" as const, id: ids[k]!, name: c.tool, arguments: argsOf(c) })) });
    round.calls.forEach((c, k) => {
      const text = c.placeholder ? `(Pruned) ${c.tool}(...)` : `output ${ids[k]}`;
      // A placeholder is a result pruning replaced (its mark); the text alone would not make one.
      const result: AgentMessageLike = {
        role: "toolResult",
        toolCallId: ids[k]!,
        toolName: c.tool,
        content: [{ type: "text", text }],
        isError: c.isError,
        details: c.pinned ? { pinned: true } : {},
      };
      out.push(c.placeholder ? markPruned(result) : result);
    });
  });
  return out;
}

/** Position of each call (order of toolCall blocks), its arguments, and the index of its result. */
function index(messages: readonly AgentMessageLike[]) {
  const calls = new Map<string, { pos: number; name: string; args: Record<string, unknown> }>();
  const results = new Map<string, { at: number; message: AgentMessageLike }>();
  messages.forEach((m, i) => {
    if (m.role === "assistant")
      for (const b of m.content as Array<{ type: string; id: string; name: string; arguments: Record<string, unknown> }>)
        calls.set(b.id, { pos: calls.size, name: b.name, args: b.arguments });
    if (m.role === "toolResult") results.set(String(m.toolCallId), { at: i, message: m });
  });
  return { calls, results };
}

const entries = (map: Map<string, unknown>) => JSON.stringify([...map]);

describe("canonicalJson (property)", () => {
  it("is the same for any key order, and parses back to the value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const reversed = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
          v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        );
        const json = canonicalJson(value);
        expect(canonicalJson(reversed)).toBe(json);
        expect(JSON.parse(json!)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe("result relations (property)", () => {
  it("are deterministic and do not depend on the message objects' identity", () => {
    fc.assert(
      fc.property(roundsArb, (rounds) => {
        // A placeholder is known by its object (pruning's mark), and a copy of one is an ordinary
        // output by design, so the copies compared here hold no placeholders.
        const messages = build(rounds.map((r) => ({ ...r, calls: r.calls.map((c) => ({ ...c, placeholder: false })) })));
        const a = resultRelations(messages, messages.length, options);
        expect(entries(resultRelations(messages, messages.length, options))).toBe(entries(a));
        expect(entries(resultRelations(structuredClone(messages), messages.length, options))).toBe(entries(a));
      }),
    );
  });

  it("depend only on messages[0, upTo): appending messages never changes them", () => {
    fc.assert(
      fc.property(roundsArb, roundsArb, fc.nat(), (rounds, more, cut) => {
        const messages = build(rounds);
        const upTo = cut % (messages.length + 1);
        const expected = entries(resultRelations(messages.slice(0, upTo), upTo, options));
        expect(entries(resultRelations(messages, upTo, options))).toBe(expected);
        expect(entries(resultRelations([...messages.slice(0, upTo), ...build(more, "later")], upTo, options))).toBe(expected);
      }),
    );
  });

  it("never relate a pinned result, a protected path or a placeholder, nor one past upTo", () => {
    fc.assert(
      fc.property(roundsArb, fc.nat(), (rounds, cut) => {
        const messages = build(rounds);
        const upTo = cut % (messages.length + 1);
        const { calls, results } = index(messages);
        for (const id of resultRelations(messages, upTo, options).keys()) {
          const result = results.get(id)!;
          expect(result.at).toBeLessThan(upTo);
          expect(messageMeta(result.message).pinned).not.toBe(true);
          expect(isPrunedMessage(result.message)).toBe(false);
          const path = callPath(calls.get(id)!.args);
          if (path !== undefined) expect(options.isProtected(path)).toBe(false);
        }
      }),
    );
  });

  it("name a later completed call: with an equal key for a duplicate, changing the same file for a stale read", () => {
    let duplicates = 0;
    let stale = 0;
    fc.assert(
      fc.property(roundsArb, fc.nat(), (rounds, cut) => {
        const messages = build(rounds);
        const upTo = cut % (messages.length + 1);
        const { calls, results } = index(messages);
        for (const [id, relation] of resultRelations(messages, upTo, options)) {
          const older = calls.get(id)!;
          const newerId = relation.kind === "duplicate" ? relation.newerCallId : relation.changedByCallId;
          const newer = calls.get(newerId)!;
          expect(newer.pos).toBeGreaterThan(older.pos);
          expect(results.get(newerId)!.at).toBeLessThan(upTo);
          if (relation.kind === "duplicate") {
            duplicates++;
            expect(newer.name).toBe(older.name);
            expect(canonicalJson(newer.args)).toBe(canonicalJson(older.args));
            // A failed call supersedes only a failed one.
            if (results.get(newerId)!.message.isError) expect(results.get(id)!.message.isError).toBe(true);
          } else {
            stale++;
            expect(older.name).toBe("read");
            expect(relation.path).toBe(normalizePath(callPath(older.args)!, CWD));
            expect(relation.changedByTool).toBe(newer.name);
            if (newer.name === "bash") {
              expect(bashChangedPaths(String(newer.args.command)).map((p) => normalizePath(p, CWD))).toContain(relation.path);
            } else {
              expect(["edit", "write"]).toContain(newer.name);
              expect(results.get(newerId)!.message.isError).toBe(false);
              expect(normalizePath(callPath(newer.args)!, CWD)).toBe(relation.path);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
    // The generator reaches both relations often enough for the checks above to mean something.
    expect(duplicates).toBeGreaterThan(20);
    expect(stale).toBeGreaterThan(20);
  });

  it("equal what a brute-force search over every later call finds", () => {
    fc.assert(
      fc.property(roundsArb, (rounds) => {
        const messages = build(rounds);
        const { calls, results } = index(messages);
        const got = resultRelations(messages, messages.length, options);
        const ordered = [...calls.entries()].sort((a, b) => a[1].pos - b[1].pos);
        const norm = (args: Record<string, unknown>) => normalizePath(callPath(args) ?? "", CWD);
        for (const [id, call] of ordered) {
          const message = results.get(id)!.message;
          const eligible = !messageMeta(message).pinned && !isPrunedMessage(message) && !(callPath(call.args) && options.isProtected(callPath(call.args)!));
          const later = ordered.filter(([, c]) => c.pos > call.pos);
          const current = (lid: string) => !isPrunedMessage(results.get(lid)!.message);
          const repeats = later.filter(
            ([lid, c]) =>
              c.name === call.name &&
              canonicalJson(c.args) === canonicalJson(call.args) &&
              current(lid) &&
              (message.isError || !results.get(lid)!.message.isError),
          );
          const changes =
            call.name !== "read"
              ? []
              : later.filter(
                  ([lid, c]) =>
                    ((c.name === "edit" || c.name === "write") && !results.get(lid)!.message.isError && norm(c.args) === norm(call.args)) ||
                    (c.name === "bash" && bashChangedPaths(String(c.args.command)).some((p) => normalizePath(p, CWD) === norm(call.args))),
                );
          // A duplicate names the newest successful repeat (for a failed result: else the newest failed one);
          // a stale read names the first change after it.
          const ok = repeats.filter(([lid]) => !results.get(lid)!.message.isError);
          const newest = (ok.length ? ok : repeats).at(-1);
          const expected = !eligible
            ? undefined
            : newest
              ? { kind: "duplicate", newerCallId: newest[0] }
              : changes.length
                ? { kind: "stale", path: norm(call.args), changedByCallId: changes[0]![0], changedByTool: changes[0]![1].name }
                : undefined;
          expect(got.get(id), id).toEqual(expected);
        }
      }),
    );
  });
});
