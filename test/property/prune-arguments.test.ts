import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessageLike } from "pi-governor";
import {
  ARGUMENT_MARKER_OPEN,
  type ArgumentCutOptions,
  type ArgumentCutReason,
  argumentsBlobText,
  blobIdOf,
  cutToolCallArguments,
  type ToolCallBlock,
} from "../../plugins/prune/arguments.ts";
import { callPath, protectedPathMatcher } from "../../lib/context/index.ts";
import { messageChars } from "../../plugins/prune/size.ts";

/** Strings from empty to tens of KB, any characters (surrogates, quotes, control characters, markers). */
const stringArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }), fc.integer({ min: 50, max: 4000 })).map(([s, n]) => s.repeat(n)),
  },
  { weight: 1, arbitrary: fc.tuple(fc.string({ unit: "binary", maxLength: 400 }), fc.integer({ min: 1, max: 30 })).map(([s, n]) => s.repeat(n)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 100, max: 3000 }))
      .map(([claim, n]) => `${"m".repeat(n)}${ARGUMENT_MARKER_OPEN}${claim.toLocaleString("en-US")} chars; kept]…${"n".repeat(n)}`),
  },
);
const { value: valueArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    stringArb,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 4 }),
  ),
}));
const pathArb = fc.constantFrom(undefined, "src/a.ts", "AGENTS.md", "docs/guide/x.md", "./lib/b.ts", "C:\\repo\\src\\c.ts");
const argsArb = fc
  .tuple(
    pathArb,
    fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof({ weight: 2, arbitrary: stringArb }, { weight: 1, arbitrary: valueArb }), { maxKeys: 5 }),
  )
  .map(([path, rest]) => (path === undefined ? rest : { path, ...rest }) as Record<string, unknown>);
const planArb = fc.constantFrom<ArgumentCutReason | undefined>("large", "large", "failed", undefined);

const blockArb = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string({ maxLength: 40 }) }),
  fc.record({ type: fc.constant("thinking"), thinking: stringArb, thinkingSignature: fc.base64String({ maxLength: 40 }) }),
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom("write", "edit", "bash", "read", "kota_x"), argsArb, planArb)
      .map(([id, name, args, plan]) => ({
        type: "toolCall",
        id,
        name,
        arguments: args,
        ...(plan ? { plan } : {}),
      })),
  },
);
const messageArb = fc
  .array(blockArb, { minLength: 1, maxLength: 5 })
  .map((content) => ({ role: "assistant", content, stopReason: "toolUse", usage: { input: 10 } }) as AgentMessageLike);
const optionsArb = fc.record({
  maxArgChars: fc.constantFrom(0, 100, 2000),
  argExcerptChars: fc.constantFrom(20, 240, 1000),
  blobs: fc.boolean(),
  patterns: fc.constantFrom([] as string[], ["AGENTS.md", "docs/**"]),
});

/** The plan is carried by the block (`plan` field), so it is the same function of the call on every pass. */
const plan = (call: ToolCallBlock): ArgumentCutReason | undefined => (call as ToolCallBlock & { plan?: ArgumentCutReason }).plan;
const toOptions = (o: { maxArgChars: number; argExcerptChars: number; blobs: boolean; patterns: string[] }): ArgumentCutOptions => ({
  maxArgChars: o.maxArgChars,
  argExcerptChars: o.argExcerptChars,
  blobs: o.blobs,
  isProtected: protectedPathMatcher(o.patterns),
});
type Block = Record<string, unknown> & { type: string };
const blocksOf = (m: AgentMessageLike) => m.content as Block[];

/** [original, cut, where] of the string leaves that differ, walking both trees in step. */
function changedLeaves(a: unknown, b: unknown, out: Array<[string, string, string]> = [], at = ""): Array<[string, string, string]> {
  if (typeof a === "string") {
    if (a !== b) out.push([a, b as string, at]);
  } else if (Array.isArray(a)) {
    a.forEach((v, i) => changedLeaves(v, (b as unknown[])[i], out, `${at}/${i}`));
  } else if (a && typeof a === "object") {
    for (const k of Object.keys(a)) changedLeaves((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], out, `${at}/${JSON.stringify(k)}`);
  }
  return out;
}

/** Where string leaves of the calls differ between two versions of a message: `block/path`. */
function changedPlaces(a: AgentMessageLike, b: AgentMessageLike | undefined): Set<string> {
  const places = new Set<string>();
  if (!b) return places;
  blocksOf(a).forEach((block, i) => {
    if (block.type === "toolCall") for (const [, , at] of changedLeaves(block.arguments, blocksOf(b)[i]!.arguments)) places.add(`${i}${at}`);
  });
  return places;
}

const runs = { numRuns: 200 };

describe("tool-call argument cuts (property)", () => {
  it("keep ids, names, other fields and other blocks; arguments stay parseable objects; never grow", () => {
    fc.assert(
      fc.property(messageArb, optionsArb, (message, o) => {
        const before = JSON.stringify(message);
        const cut = cutToolCallArguments(message, plan, toOptions(o));
        expect(JSON.stringify(message)).toBe(before);
        if (!cut.replacement) {
          expect(cut).toMatchObject({ savedChars: 0, blobs: [], summaries: [] });
          return;
        }
        expect(messageChars(cut.replacement)).toBeLessThan(messageChars(message));
        expect(cut.savedChars).toBe(messageChars(message) - messageChars(cut.replacement));
        const { content: _a, ...restIn } = message as Record<string, unknown>;
        const { content: _b, ...restOut } = cut.replacement as Record<string, unknown>;
        expect(restOut).toEqual(restIn);
        const original = blocksOf(message);
        const out = blocksOf(cut.replacement);
        expect(out).toHaveLength(original.length);
        original.forEach((block, i) => {
          const o2 = out[i]!;
          if (block.type !== "toolCall") return expect(o2).toBe(block);
          if (o2 === block) return;
          const { arguments: _x, ...fieldsIn } = block;
          const { arguments: args, ...fieldsOut } = o2;
          expect(fieldsOut).toEqual(fieldsIn);
          expect(args && typeof args === "object" && !Array.isArray(args)).toBe(true);
          expect(JSON.parse(JSON.stringify(args))).toEqual(args);
          expect(callPath(args as Record<string, unknown>)).toBe(callPath(block.arguments as Record<string, unknown>));
        });
        expect(cut.summaries).toHaveLength(out.filter((b, i) => b !== original[i]).length);
      }),
      runs,
    );
  });

  it("touch only planned calls off protected paths, and give every cut value a way back", () => {
    fc.assert(
      fc.property(messageArb, optionsArb, (message, o) => {
        const options = toOptions(o);
        const cut = cutToolCallArguments(message, plan, options);
        if (!cut.replacement) return;
        const blobIds = new Set(cut.blobs.map((b) => b.id));
        blocksOf(message).forEach((block, i) => {
          const o2 = blocksOf(cut.replacement!)[i]!;
          if (o2 === block) return;
          const args = block.arguments as Record<string, unknown>;
          const reason = plan(block as unknown as ToolCallBlock);
          expect(reason).toBeDefined();
          const path = callPath(args);
          expect(path !== undefined && options.isProtected(path)).toBe(false);
          if (reason === "large") expect(JSON.stringify(args).length).toBeGreaterThan(o.maxArgChars);
          const id = blobIdOf(argumentsBlobText(args));
          if (o.blobs) expect(blobIds.has(id)).toBe(true);
          const leaves = changedLeaves(args, o2.arguments);
          expect(leaves.length).toBeGreaterThan(0);
          for (const [from, to] of leaves) {
            expect(to.length).toBeLessThan(from.length);
            expect(to).toContain(`${ARGUMENT_MARKER_OPEN}${from.length.toLocaleString("en-US")} chars`);
            if (reason === "failed") expect(to).toContain("of a failed call's arguments;");
            // The marker names the stored blob by the first 12 hex digits of its id (BlobStore.resolve finds it).
            if (o.blobs) expect(to).toContain(`blob_read({"blobId":"${id.slice(0, 12)}"})`);
            else if (reason === "large" && path) expect(to).toContain("read the file for its current text");
            else expect(to).toContain("kept in the session file");
          }
        });
        for (const b of cut.blobs) expect(b.id).toBe(blobIdOf(b.text));
      }),
      runs,
    );
  });

  it("are deterministic and idempotent: the same bytes again, and a cut message cuts to nothing more", () => {
    let cuts = 0;
    fc.assert(
      fc.property(messageArb, optionsArb, (message, o) => {
        const first = cutToolCallArguments(message, plan, toOptions(o));
        const again = cutToolCallArguments(structuredClone(message), plan, toOptions(o));
        expect(JSON.stringify(again)).toBe(JSON.stringify(first));
        if (!first.replacement) return;
        cuts++;
        const second = cutToolCallArguments(first.replacement, plan, toOptions(o));
        expect(second.replacement).toBeUndefined();
        expect(second.savedChars).toBe(0);
        // A cut value is not cut again when the excerpt setting shrinks later or its call is judged
        // as failed (values left whole before may be cut then).
        const firstPlaces = changedPlaces(message, first.replacement);
        const smaller = cutToolCallArguments(first.replacement, plan, toOptions({ ...o, argExcerptChars: 0 }));
        const asFailed = cutToolCallArguments(first.replacement, (c) => (plan(c) ? "failed" : undefined), toOptions(o));
        for (const later of [smaller, asFailed])
          for (const place of changedPlaces(first.replacement, later.replacement)) expect(firstPlaces.has(place)).toBe(false);
      }),
      runs,
    );
    // The generators must actually produce cuts, or the properties above say nothing.
    expect(cuts).toBeGreaterThan(runs.numRuns / 5);
  });
});
