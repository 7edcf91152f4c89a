/**
 * fast-check arbitraries of pi message histories for the prune properties: random turns, tools,
 * output sizes, errors, images, thinking blocks, pins and blob pointers. Every tool call gets its
 * result, ids and timestamps are unique, as in a real session.
 */
import fc from "fast-check";
import type { AgentMessageLike } from "pi-governor";

const TOOLS = ["read", "bash", "kota_search", "kota_deps", "kota_impact", "grep", "blob_read", "custom_tool"] as const;

interface ResultSpec {
  tool: (typeof TOOLS)[number];
  size: number;
  snippet: boolean;
  isError: boolean;
  image: boolean;
  pinned: boolean;
  blob: boolean;
}
interface RoundSpec {
  thinking: boolean;
  results: ResultSpec[];
}
interface TurnSpec {
  userImage: boolean;
  rounds: RoundSpec[];
}

const resultArb: fc.Arbitrary<ResultSpec> = fc.record({
  tool: fc.constantFrom(...TOOLS),
  size: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 3000 }), fc.integer({ min: 3000, max: 12000 })),
  snippet: fc.boolean(),
  isError: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  image: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  pinned: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
  blob: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});

/** Turn specs: 1 to `maxTurns` turns of 0 to 3 tool rounds with 1 or 2 calls each. */
export function turnsArb(maxTurns = 12): fc.Arbitrary<TurnSpec[]> {
  return fc.array(
    fc.record({
      userImage: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      rounds: fc.array(fc.record({ thinking: fc.boolean(), results: fc.array(resultArb, { minLength: 1, maxLength: 2 }) }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: maxTurns },
  );
}

/** Builds the message history of the specs (deterministic). */
export function buildHistory(turns: readonly TurnSpec[]): AgentMessageLike[] {
  const out: AgentMessageLike[] = [];
  let t = 1_700_000_000_000;
  let call = 0;
  const filler = (n: number, seed: number) => {
    let s = "";
    while (s.length < n) s += `line ${seed}-${s.length}: const value = compute(${seed});\n`;
    return s.slice(0, n);
  };
  turns.forEach((turn, ti) => {
    const content: AgentMessageLike["content"] = [{ type: "text", text: `prompt ${ti}: look at module ${ti % 5}` }];
    if (turn.userImage) (content as unknown[]).push({ type: "image", data: "aGVsbG8=", mimeType: "image/png" });
    out.push({ role: "user", content, timestamp: t++ });
    for (const round of turn.rounds) {
      const ids = round.results.map(() => `call_${++call}`);
      const blocks: unknown[] = [];
      if (round.thinking) blocks.push({ type: "thinking", thinking: `thinking about ${ti}`, thinkingSignature: `sig${call}` });
      blocks.push({ type: "text", text: `checking ${ti}` });
      round.results.forEach((r, k) => {
        const args: Record<string, unknown> =
          r.tool === "read"
            ? { path: `src/m${ti}.ts` }
            : r.tool === "bash"
              ? { command: `rg -n thing src/${ti}` }
              : r.tool === "kota_search"
                ? { query: `q ${ti}`, scope: ["code"], output: r.snippet ? "snippet" : "compact", limit: 20 }
                : { target: `t${ti}` };
        blocks.push({ type: "toolCall", id: ids[k], name: r.tool, arguments: args });
      });
      out.push({ role: "assistant", content: blocks as never, timestamp: t++, stopReason: "toolUse" });
      round.results.forEach((r, k) => {
        const rc: unknown[] = [{ type: "text", text: filler(r.size, call * 10 + k) }];
        if (r.image) rc.push({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
        const details: Record<string, unknown> = {};
        if (r.pinned) details.pinned = true;
        if (r.blob)
          Object.assign(details, {
            truncated: true,
            blobId: `blob${call}${k}`,
            blobPath: `/tmp/blob${call}${k}`,
            originalBytes: r.size * 3,
            excerptBytes: r.size,
          });
        out.push({ role: "toolResult", toolCallId: ids[k]!, toolName: r.tool, content: rc as never, details, isError: r.isError, timestamp: t++ });
      });
    }
    out.push({ role: "assistant", content: [{ type: "text", text: `answer ${ti}` }], timestamp: t++, stopReason: "stop" });
  });
  return out;
}

/** Request points of a history: before every assistant message, as pi calls the model. */
export function requestPoints(history: readonly AgentMessageLike[]): number[] {
  const points: number[] = [];
  history.forEach((m, i) => {
    if (m.role === "assistant") points.push(i);
  });
  return points;
}
