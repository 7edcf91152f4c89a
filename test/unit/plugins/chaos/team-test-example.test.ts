/**
 * The example of docs/chaos.md, as a team would write it in its own repository: its preset plus
 * chaos, built with createGovernor, asserting that its retry settings hold under injected faults.
 * Imports go through the package name, as they would outside this repository.
 */
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, definePreset } from "pi-governor";
import { createGovernor } from "pi-governor/host";
import { chaos, chaosControllerOf } from "pi-governor/plugins/chaos/index.ts";
import { retry } from "pi-governor/plugins/retry/index.ts";
import { timeout } from "pi-governor/plugins/timeout/index.ts";

// --- the team's own code (normally in its src/) ---
let lookups = 0;
const acmeTools = definePlugin({
  name: "acme:tools",
  configKey: "acme",
  description: "Acme's tools",
  schema: z.object({}),
  defaults: {},
  apply(pipeline) {
    pipeline.registerTool("acme:tools", {
      name: "acme_lookup",
      description: "Look a record up",
      parameters: Type.Object({ id: Type.Number() }),
      annotations: { readOnlyHint: true },
      async execute(call) {
        lookups++;
        return { content: [{ type: "text", text: `record ${String(call.args.id)}` }] };
      },
    });
  },
});
const acmePreset = definePreset({
  name: "acme",
  description: "Acme's stack",
  plugins: () => [retry({ maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5, budget: { ratio: 0.5, minRetries: 10 } }), timeout({ defaultMs: 2_000 }), acmeTools()],
});

// --- the team's test ---
async function governorWithChaos(faults: Parameters<typeof chaos>[0]) {
  const preset = definePreset({ ...acmePreset, plugins: () => [...acmePreset.plugins(), chaos({ enabled: true, seed: 7, ...faults })] });
  // layers: [] keeps the developer's own ~/.pi config out of the test.
  return createGovernor({ preset, cwd: process.cwd(), agentDir: process.cwd(), layers: [] });
}

describe("acme's retry settings under chaos", () => {
  it("retries a failing lookup exactly 3 times (maxAttempts 4), then reports the network error", async () => {
    lookups = 0;
    const gov = await governorWithChaos({ faults: [{ type: "error", tools: "acme_*", probability: 1, category: "network" }] });
    const obs = await gov.pipeline.callTool("acme_lookup", { id: 1 });
    expect(obs.status).toBe("ERROR");
    expect(obs.retries).toBe(3);
    expect(lookups).toBe(0); // every attempt failed before the tool ran
    expect(obs.details.chaos).toMatchObject({ injected: true });
  });

  it("rides out intermittent faults: 100 lookups at a 15% fault rate all succeed", async () => {
    lookups = 0;
    const gov = await governorWithChaos({ faults: [{ type: "error", tools: "acme_*", probability: 0.15, category: "connection_lost" }] });
    for (let id = 0; id < 100; id++) expect((await gov.pipeline.callTool("acme_lookup", { id })).status).toBe("SUCCESS");
    expect(lookups).toBe(100);
    expect(chaosControllerOf(gov.pipeline)!.injected).toBeGreaterThan(10);
  });
});
