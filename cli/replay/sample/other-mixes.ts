/**
 * Two more call mixes of the session generator (`mix`), for the kinds of sessions the step rule is
 * measured on besides reading and coding:
 *
 * - "navigation": a code-intelligence heavy agent (the kota preset's tools): `kota_search` (mostly
 *   snippets), `kota_usages`, `kota_deps` and `kota_impact` make most calls, some repeated with the
 *   same arguments, with a read now and then.
 * - "logs": long `bash` output: test runs (some failing), builds, log tails and container logs of
 *   4-30 KB, with a read or a grep in between.
 *
 * Both call back into the generator's read-mostly calls (`base`: searches, usages, deps, reads by
 * index) so the tool shapes stay the same as everywhere else.
 */
import type { GenCall, GenKit } from "./coding-calls.ts";

/** The generator's read-mostly calls by name, and its pinned impact call. */
export interface BaseCalls {
  read: () => GenCall;
  grep: () => GenCall;
  search: () => GenCall;
  deps: () => GenCall;
  usages: () => GenCall;
  impact: () => GenCall;
}

/** A mix of the generator beyond read-mostly and coding. */
export type CallMix = "navigation" | "logs";

/** Returns the next call of `mix`. */
export function otherMixCalls(kit: GenKit, mix: CallMix, base: BaseCalls): () => GenCall {
  const { rand, pick, between, text, codeLine, files, words } = kit;
  const tx = (t: string) => [{ type: "text", text: t }];
  if (mix === "navigation") {
    const earlier: GenCall[] = [];
    return () => {
      // A fifth of the navigation calls repeat an earlier one with the same arguments (and answer).
      if (earlier.length > 3 && rand() < 0.2) return pick(earlier);
      const r = rand();
      const call = r < 0.35 ? base.search() : r < 0.55 ? base.usages() : r < 0.75 ? base.deps() : r < 0.8 ? base.impact() : r < 0.9 ? base.read() : base.grep();
      if (call.name !== "read") {
        const outcome = call.result();
        const fixed = { ...call, result: () => outcome };
        earlier.push(fixed);
        return fixed;
      }
      return call;
    };
  }
  const logLine = () =>
    `${new Date(Date.UTC(2026, 10, 20, 9, between(0, 59), between(0, 59))).toISOString()} ${pick(["INFO", "INFO", "WARN", "DEBUG", "ERROR"])} ${pick(words)}: ${codeLine().trim()}`;
  return () => {
    const r = rand();
    if (r < 0.15) return base.read();
    if (r < 0.25) return base.grep();
    const command = pick([
      "npm test",
      "npm test -- --reporter=verbose",
      "npm run build",
      "tail -n 400 logs/app.log",
      "docker compose logs api --tail 300",
      "npx tsc --noEmit",
      "npm run lint",
    ]);
    const chars = between(4000, 30000) * kit.scale;
    return {
      name: "bash",
      args: { command },
      result: () => {
        if (command.startsWith("npm test") && rand() < 0.4) {
          const body = text(chars, () =>
            rand() < 0.2
              ? `FAIL ${pick(files)} > ${pick(words)} ${pick(words)}: expected ${between(1, 9)} to be ${between(1, 9)}`
              : `  ✓ ${pick(words)} ${pick(words)} (${between(1, 90)} ms)`,
          );
          return { content: tx(`${body}\n\nCommand exited with code 1`), isError: true };
        }
        if (command.includes("tsc") || command.includes("lint"))
          return {
            content: tx(
              text(
                chars / 3,
                () =>
                  `${pick(files)}(${between(1, 400)},${between(1, 80)}): error TS${between(2000, 2800)}: ${pick(words)} is not assignable to ${pick(words)}.`,
              ),
            ),
          };
        return { content: tx(text(chars, logLine)) };
      },
    };
  };
}
