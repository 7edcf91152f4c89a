/**
 * The command line's `typebox` stand-in (cli/typebox-json.ts) against the real typebox: the kota
 * preset (every tool whose parameters the package builds with `Type`) built once with each must
 * give every tool the same parameters, key order and `required` lists included.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";
import { afterAll, describe, expect, it } from "vitest";
import { itWithSqlite } from "../../helpers/sqlite-available.ts";
import { createGovernor } from "pi-governor/host";
import type { Governor } from "pi-governor";
import { kotaPreset } from "../../../presets/index.ts";
import { Type } from "../../../cli/typebox-json.ts";

const STAND_IN = fileURLToPath(new URL("../../../cli/typebox-json.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gov-typebox-json-"));
const governors: Governor[] = [];
afterAll(async () => {
  for (const g of governors) await g.pipeline.hooks.sessionShutdown.run({ sessionId: "s", cwd: dir, reason: "quit" });
  rmSync(dir, { recursive: true, force: true });
});

type Build = typeof createGovernor;
async function toolParameters(build: Build, preset: typeof kotaPreset): Promise<Record<string, string>> {
  const governor = await build({ preset, cwd: dir, agentDir: dir, env: {}, layers: [] });
  governors.push(governor);
  return Object.fromEntries([...governor.pipeline.tools].map(([name, tool]) => [name, JSON.stringify(tool.definition.parameters)]));
}

describe("cli/typebox-json.ts, the command line's typebox", { timeout: 120_000 }, () => {
  itWithSqlite("builds every shipped tool's parameters exactly as typebox does", async () => {
    const real = await toolParameters(createGovernor, kotaPreset);
    // The same sources, loaded the way bin/pi-governor.mjs loads them: `typebox` is the stand-in.
    const jiti = createJiti(import.meta.url, { alias: { typebox: STAND_IN }, moduleCache: false });
    const host = await jiti.import<typeof import("../../../host/index.ts")>("../../../host/index.ts");
    const presets = await jiti.import<typeof import("../../../presets/index.ts")>("../../../presets/index.ts");
    const standIn = await toolParameters(host.createGovernor, presets.kotaPreset);
    expect(Object.keys(real)).toEqual(expect.arrayContaining(["kota_search", "kota_task_context", "blob_read", "context_search", "context_fold"]));
    expect(standIn).toEqual(real);
  });

  it("leaves optional properties out of `required`, and omits an empty `required`", () => {
    expect(Type.Object({ a: Type.String(), b: Type.Optional(Type.Integer({ minimum: 1 })) })).toEqual({
      type: "object",
      required: ["a"],
      properties: { a: { type: "string" }, b: { type: "integer", minimum: 1 } },
    });
    expect(JSON.stringify(Type.Object({ b: Type.Optional(Type.Boolean()) }, { description: "d" }))).toBe(
      '{"type":"object","properties":{"b":{"type":"boolean"}},"description":"d"}',
    );
  });

  it("names a builder it does not have instead of failing with `undefined is not a function`", () => {
    expect(() => (Type as unknown as Record<string, () => unknown>).Record!()).toThrow(/Type\.Record is not available in the pi-governor command line/);
  });
});
