import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { prune } from "../../plugins/prune/index.ts";
import { piTestScope, type PiTestSession, readTurnSteps } from "../helpers/pi-session.ts";

const TURNS = 6;
/** The model pi reports for the test helper's faux provider (pi-ai's default provider name). */
const FAUX_KEY = "faux/faux-1";

const results = (context: unknown[]) => (context as AgentMessageLike[]).filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m.content));

describe("prune per model in a real pi session", () => {
  const scope = piTestScope();
  let cwd = "";

  async function run(prune_: Record<string, unknown>): Promise<PiTestSession> {
    const preset = definePreset({ name: "e2e-per-model", description: "", plugins: () => [prune()] });
    const layers = [
      { kind: "project" as const, source: "test", data: { prune: { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false, ...prune_ } } },
    ];
    const pi = await scope.start({
      ui: true,
      cwd,
      tools: ["read"],
      extensions: [createExtension(preset, { governorOptions: { layers, cwd } })],
      responses: readTurnSteps(1, TURNS),
    });
    const model = pi.faux.getModel();
    expect(`${model.provider}/${model.id}`).toBe(FAUX_KEY);
    for (let t = 1; t <= TURNS; t++) await pi.session.prompt(`read m${t}.ts`);
    await pi.session.prompt("/governor pruning");
    return pi;
  }

  it(`perModel "${FAUX_KEY}": { enabled: false } sends the full history; without it old results are pruned`, async () => {
    cwd = scope.tempDir("pigov-per-model-");
    for (let t = 1; t <= TURNS; t++) writeFileSync(join(cwd, `m${t}.ts`), `// module ${t}\n${"export const x = 1;\n".repeat(400)}`);

    const pruned = await run({});
    const prunedLast = results(pruned.contexts.at(-1)!);
    expect(prunedLast).toHaveLength(TURNS);
    for (let i = 0; i < TURNS - 2; i++) expect(prunedLast[i]).toContain(`(Pruned) read(path=\\"m${i + 1}.ts\\")`);
    expect(pruned.ui.notifications.at(-1)!.message).toMatch(/^Pruning: on for model faux\/faux-1\n/);

    const off = await run({ perModel: { [FAUX_KEY]: { enabled: false } } });
    expect(off.contexts).toHaveLength(TURNS * 2);
    for (const context of off.contexts) for (const text of results(context)) expect(text).not.toContain("(Pruned)");
    const offLast = results(off.contexts.at(-1)!);
    for (let i = 0; i < TURNS; i++) expect(offLast[i]).toContain(`// module ${i + 1}`);
    const status = off.ui.notifications.at(-1)!.message;
    expect(status).toContain(`Pruning: off for model ${FAUX_KEY}`);
    expect(status).toContain(`per-model settings (${FAUX_KEY}): enabled=false`);

    // A per-model threshold for the same model: keep 4 turns instead of 2.
    const wide = await run({ perModel: { "faux/*": { keepRecentTurns: 4 } } });
    const wideLast = results(wide.contexts.at(-1)!);
    expect(wideLast.filter((t) => t.includes("(Pruned)"))).toHaveLength(TURNS - 4);
    expect(wide.ui.notifications.at(-1)!.message).toContain("per-model settings (faux/*): keepRecentTurns=4");
  }, 60_000);
});
