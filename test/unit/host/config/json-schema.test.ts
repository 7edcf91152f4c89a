import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "pi-governor";
import { configJsonSchema } from "../../../../host/config/json-schema.ts";

describe("configJsonSchema", () => {
  it("describes every plugin section with its defaults, every key optional, unknown keys rejected", () => {
    const prune = definePlugin({
      name: "t:prune",
      configKey: "prune",
      description: "pruning",
      schema: z.object({ keepRecentTurns: z.number().int().min(0).describe("turns kept intact"), adaptive: z.object({ enterPercent: z.number() }) }),
      defaults: { keepRecentTurns: 2, adaptive: { enterPercent: 70 } },
      apply() {},
    });
    const schema = configJsonSchema([prune()], ["kota", "lean"]) as { properties: Record<string, any>; additionalProperties: boolean };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.preset.enum).toEqual(["kota", "lean"]);
    const section = schema.properties.prune;
    expect(section.required ?? []).toEqual([]);
    expect(section.additionalProperties).toBe(false);
    expect(section.properties.keepRecentTurns).toMatchObject({ type: "integer", minimum: 0, default: 2, description: "turns kept intact" });
    expect(section.properties.enabled).toMatchObject({ type: "boolean", default: true });
    expect(section.properties.adaptive.properties.enterPercent.default).toBe(70);
  });

  it("marks trusted keys, so the reference shows which keys a project file cannot set", () => {
    const server = definePlugin({
      name: "t:server",
      configKey: "server",
      description: "",
      schema: z.object({ command: z.string().describe("Program to run."), limit: z.number().int().max(5) }),
      defaults: { command: "x", limit: 1 },
      trustedKeys: ["command"],
      apply() {},
    });
    const props = (configJsonSchema([server()], []) as { properties: Record<string, any> }).properties.server.properties;
    expect(props.command.description).toBe("Trusted: global file or PI_GOVERNOR_CONFIG only (a project file needs allowProjectSpawnConfig). Program to run.");
    expect(props.limit.description ?? "").not.toMatch(/Trusted/);
  });

  it("marks additive lists, so the reference shows that a project file can only add to them", () => {
    const guard = definePlugin({
      name: "t:guard",
      configKey: "guard",
      description: "",
      schema: z.object({ deny: z.array(z.string().max(9)).max(5).describe("Refused tools."), other: z.array(z.string().max(9)).max(5) }),
      defaults: { deny: [], other: [] },
      additiveKeys: ["deny"],
      apply() {},
    });
    const props = (configJsonSchema([guard()], []) as { properties: Record<string, any> }).properties.guard.properties;
    expect(props.deny.description).toBe(
      "Adds up: the entries of every config file and PI_GOVERNOR_CONFIG are all in force; a project file can add entries, never remove one. Refused tools.",
    );
    expect(props.other.description ?? "").not.toMatch(/Adds up/);
  });
});

describe("docs/pi-governor.schema.json", () => {
  it("is what `pi-governor schema` generates from the shipped presets (run `npm run schema` after changing a plugin's options: it passes these two paths)", async () => {
    const { readFileSync } = await import("node:fs");
    const { DEFAULT_SCHEMA_PATH, CONFIG_DOC_PATH } = await import("../../../../cli/write-schema.ts");
    const { configMarkdown } = await import("../../../../cli/config-doc.ts");
    const { presets } = await import("../../../../presets/index.ts");
    const expected = configJsonSchema(
      presets.flatMap((p) => p.plugins()),
      presets.map((p) => p.name),
    );
    expect(JSON.parse(readFileSync(DEFAULT_SCHEMA_PATH, "utf8"))).toEqual(expected);
    expect(readFileSync(CONFIG_DOC_PATH, "utf8")).toBe(configMarkdown(expected));
  });
});
