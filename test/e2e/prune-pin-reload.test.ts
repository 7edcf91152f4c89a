import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentMessageLike, definePreset } from "pi-governor";
import { createExtension } from "pi-governor/host";
import { prune } from "../../plugins/prune/index.ts";
import { PIN_KIND, STEP_KIND } from "../../plugins/prune/records.ts";
import { piTestScope, readTurnSteps } from "../helpers/pi-session.ts";

const TURNS = 9;

const toolText = (m: AgentMessageLike) => JSON.stringify(m.content);

describe("prune pins and boundary in a real pi session", () => {
  const scope = piTestScope();

  it("/governor pin pins the last result, the pin and the boundary are session entries, and both survive /reload", async () => {
    const cwd = scope.tempDir("pigov-pin-");
    for (let t = 1; t <= TURNS; t++) writeFileSync(join(cwd, `m${t}.ts`), `// module ${t}\n${"export const x = 1;\n".repeat(400)}`);
    const preset = definePreset({ name: "e2e-pin", description: "", plugins: () => [prune()] });
    const layers = [{ kind: "project" as const, source: "test", data: { prune: { cacheAware: false, minStepTokens: 0, minStepPercent: 0, adaptive: false } } }];
    let governors = 0;
    // The initial cwd is the session's, so each factory run builds exactly one governor.
    const extension = createExtension(preset, { governorOptions: { layers, cwd }, onGovernor: () => void governors++ });
    const pi = await scope.start({ ui: true, persist: true, cwd, tools: ["read"], extensions: [extension], responses: readTurnSteps(1, 4) });
    for (let t = 1; t <= 4; t++) await pi.session.prompt(`read m${t}.ts`);

    await pi.session.prompt("/governor pin");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/Pinned the read result/);
    const custom = (kind: string) =>
      pi!.session.sessionManager.getEntries().filter((e) => e.type === "custom" && (e as { customType?: string }).customType === kind);
    expect(custom(PIN_KIND)).toHaveLength(1);
    expect(custom(STEP_KIND).length).toBeGreaterThan(0);

    // /reload re-creates every extension (a new governor and pruner); the helper keeps the faux model.
    await pi.reload();
    expect(governors).toBe(2); // a fresh governor: the pin can only come from the session entries
    pi.faux.setResponses(readTurnSteps(5, TURNS));
    for (let t = 5; t <= TURNS; t++) await pi.session.prompt(`read m${t}.ts`);

    const last = pi.contexts.at(-1) as AgentMessageLike[];
    const results = last.filter((m) => m.role === "toolResult");
    expect(results).toHaveLength(TURNS);
    // m4's read was pinned before the reload: kept in full, with the marker the model can see.
    expect(toolText(results[3]!)).toContain("[pinned by the user");
    expect(toolText(results[3]!)).toContain("// module 4");
    // The others older than the last two turns are placeholders that say how to read them again.
    for (const i of [0, 1, 2, 4, 5, 6]) expect(toolText(results[i]!)).toContain(`(Pruned) read(path=\\"m${i + 1}.ts\\")`);
    expect(toolText(results[8]!)).toContain("// module 9");

    await pi.session.prompt("/governor pruning");
    expect(pi.ui.notifications.at(-1)!.message).toMatch(/pinned by the user: read/);
  }, 60_000);
});
