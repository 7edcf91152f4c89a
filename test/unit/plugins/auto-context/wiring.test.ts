import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { itWithSqlite } from "../../../helpers/sqlite-available.ts";
import { createGovernor } from "pi-governor/host";
import { definePreset, type GovernorPlugin } from "pi-governor";
import { autoContext } from "../../../../plugins/auto-context/index.ts";
import { KOTA_RUNTIME, kota } from "../../../../plugins/kota/index.ts";
import { kotaPreset } from "../../../../presets/kota/index.ts";

const dir = mkdtempSync(join(tmpdir(), "gov-autocontext-wiring-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const build = (plugins: GovernorPlugin<any>[], data: Record<string, unknown> = {}) =>
  createGovernor({
    preset: definePreset({ name: "p", description: "", plugins: () => plugins }),
    cwd: dir,
    agentDir: dir,
    env: {},
    layers: [{ kind: "global", source: "G", data }],
  });

describe("autoContext gets KotaDB's runtime as the kota:runtime service", () => {
  it("is applied after kota even when the preset lists it first, and shares kota's runtime", async () => {
    const gov = await build([autoContext(), kota()]);
    expect(gov.applyOrder).toEqual(["governor:kota", "governor:auto-context"]);
    expect(gov.problems()).toEqual([]);
    expect(gov.plugins.map((p) => [p.plugin.name, p.enabled])).toEqual([
      ["governor:auto-context", true],
      ["governor:kota", true],
    ]);
    expect(gov.services.need(KOTA_RUNTIME).indexer.busy).toBe(false);
    expect(gov.pipeline.describe().beforeAgentStart?.map((t) => t.name)).toEqual(["governor:auto-context"]);
  });

  it("without the kota plugin in the preset, is a plugin failure that says which plugin to add", async () => {
    const gov = await build([autoContext()]);
    expect(gov.problems()).toEqual([
      'plugin "governor:auto-context" is not applied: it needs service "kota:runtime", which no plugin in preset "p" provides; add governor:kota (kota() from pi-governor/plugins/kota/index.ts) to the preset or set "autoContext": { "enabled": false }',
    ]);
    expect(gov.pipeline.describe().beforeAgentStart ?? []).toEqual([]);
  });

  itWithSqlite("is off with kota when the config turns kota off, without a warning", async () => {
    const gov = await createGovernor({
      preset: kotaPreset,
      cwd: dir,
      agentDir: dir,
      env: {},
      layers: [{ kind: "global", source: "G", data: { kota: { enabled: false } } }],
    });
    expect(gov.problems()).toEqual([]);
    expect(gov.degraded()).toEqual([]);
    expect(gov.statusText()).toMatch(/governor:auto-context \[autoContext\]: off \(needs service "kota:runtime" from governor:kota \("kota"\), which is off\)/);
    expect(gov.services.maybe(KOTA_RUNTIME)).toBeUndefined();
  });
});
