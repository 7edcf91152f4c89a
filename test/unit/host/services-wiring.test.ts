import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGovernor } from "pi-governor/host";
import { definePlugin, definePreset, defineService, type GovernorPlugin, type ServiceKey } from "pi-governor";

const dir = mkdtempSync(join(tmpdir(), "gov-services-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const INDEX = defineService<{ lookup(name: string): string }>("test:index", { providedBy: "test:indexer" });
const CACHE = defineService<Map<string, string>>("test:cache");

/** A plugin that records its apply into `log`, and provides/needs what it is told. */
function plugin(
  name: string,
  log: string[],
  wiring: { provides?: ServiceKey<any>[]; requires?: ServiceKey<any>[]; optional?: ServiceKey<any>[] } = {},
  body?: Parameters<typeof definePlugin>[0]["apply"],
) {
  return definePlugin({
    name: `test:${name}`,
    configKey: name,
    description: "",
    schema: z.object({}),
    defaults: {},
    ...wiring,
    async apply(pipeline, config, services) {
      log.push(name);
      if (wiring.provides?.includes(INDEX)) services.provide(INDEX, { lookup: (n) => `${name} found ${n}` });
      if (wiring.provides?.includes(CACHE)) services.provide(CACHE, new Map([["from", name]]));
      await body?.(pipeline, config, services);
    },
  });
}

function governor(plugins: GovernorPlugin<any>[], data: Record<string, unknown> = {}) {
  return createGovernor({
    preset: definePreset({ name: "wired", description: "", plugins: () => plugins }),
    cwd: dir,
    agentDir: dir,
    env: {},
    layers: [{ kind: "global", source: "G", data }],
  });
}

describe("service wiring", () => {
  it("applies a provider before the plugin that needs it, whatever the preset order, and hands the value over", async () => {
    const log: string[] = [];
    let seen = "";
    const user = plugin("user", log, { requires: [INDEX] }, (_p, _c, services) => void (seen = services.need(INDEX).lookup("a.ts")));
    const gov = await governor([plugin("first", log)(), user(), plugin("indexer", log, { provides: [INDEX] })(), plugin("last", log)()]);
    expect(log).toEqual(["first", "indexer", "user", "last"]);
    expect(gov.applyOrder).toEqual(["test:first", "test:indexer", "test:user", "test:last"]);
    expect(seen).toBe("indexer found a.ts");
    expect(gov.problems()).toEqual([]);
    expect(gov.services.need(INDEX).lookup("b.ts")).toBe("indexer found b.ts");
    expect(gov.statusText()).toMatch(/test:user \[user\]: on · needs "test:index" \(test:indexer\)/);
    expect(gov.statusText()).toMatch(/test:indexer \[indexer\]: on · provides "test:index"/);
    expect(gov.statusText()).toMatch(/Apply order \(providers first\): test:first > test:indexer > test:user > test:last/);
  });

  it("keeps the preset order when nothing needs reordering (a stable sort)", async () => {
    const log: string[] = [];
    const gov = await governor([
      plugin("c", log)(),
      plugin("indexer", log, { provides: [INDEX] })(),
      plugin("a", log)(),
      plugin("user", log, { requires: [INDEX] })(),
      plugin("b", log)(),
    ]);
    expect(log).toEqual(["c", "indexer", "a", "user", "b"]);
    expect(gov.statusText()).not.toMatch(/Apply order/);
  });

  it("reports a required service no plugin provides as a failure naming the plugin, the service and its provider; the rest runs", async () => {
    const log: string[] = [];
    const gov = await governor([plugin("user", log, { requires: [INDEX] })(), plugin("other", log)()]);
    expect(log).toEqual(["other"]);
    expect(gov.problems()).toEqual([
      'plugin "test:user" is not applied: it needs service "test:index", which no plugin in preset "wired" provides; add test:indexer to the preset or set "user": { "enabled": false }',
    ]);
    expect(gov.plugins.find((p) => p.plugin.name === "test:user")).toMatchObject({
      enabled: false,
      failed: expect.stringMatching(/needs service "test:index"/),
    });
    expect(gov.statusText()).toMatch(/test:user \[user\]: FAILED \(it needs service "test:index"/);
  });

  it("turns a plugin off with its provider when the config turns the provider off, without a problem", async () => {
    const log: string[] = [];
    const gov = await governor(
      [
        plugin("indexer", log, { provides: [INDEX] })(),
        plugin("user", log, { requires: [INDEX] })(),
        plugin("chained", log, { requires: [CACHE] })(),
        plugin("cacher", log, { provides: [CACHE], requires: [INDEX] })(),
      ],
      { indexer: { enabled: false } },
    );
    expect(log).toEqual([]);
    expect(gov.problems()).toEqual([]);
    expect(gov.statusText()).toMatch(/test:user \[user\]: off \(needs service "test:index" from test:indexer \("indexer"\), which is off\)/);
    expect(gov.statusText()).toMatch(/test:chained \[chained\]: off \(needs service "test:cache" from test:cacher, which is off/);
  });

  it("reports a cycle with its path, and a plugin waiting on the cycle", async () => {
    const log: string[] = [];
    const gov = await governor([
      plugin("a", log, { provides: [INDEX], requires: [CACHE] })(),
      plugin("b", log, { provides: [CACHE], optional: [INDEX] })(),
      plugin("c", log, { requires: [INDEX] })(),
      plugin("free", log)(),
    ]);
    expect(log).toEqual(["free"]);
    expect(gov.problems()).toEqual([
      'plugin "test:a" is not applied: its services form a cycle: test:a needs "test:cache" from test:b, which needs "test:index" from test:a; remove one of these dependencies or one of the plugins',
      'plugin "test:b" is not applied: its services form a cycle: test:b needs "test:index" from test:a, which needs "test:cache" from test:b; remove one of these dependencies or one of the plugins',
      'plugin "test:c" is not applied: it waits for plugins whose services form a cycle: test:a needs "test:cache" from test:b, which needs "test:index" from test:a; remove one of these dependencies or one of the plugins',
    ]);
  });

  it("leaves out the dependents of a provider whose apply failed, and takes back what it provided", async () => {
    const log: string[] = [];
    const broken = plugin("indexer", log, { provides: [INDEX] }, () => {
      throw new Error("index file is corrupt");
    });
    const gov = await governor([
      broken(),
      plugin("user", log, { requires: [INDEX] })(),
      plugin("reader", log, { optional: [INDEX] }, (_p, _c, s) => void log.push(`maybe:${s.maybe(INDEX) === undefined}`))(),
    ]);
    expect(log).toEqual(["indexer", "reader", "maybe:true"]);
    expect(gov.problems()).toEqual([
      'plugin "test:indexer" failed in hook "apply": index file is corrupt',
      'plugin "test:user" is not applied: it needs service "test:index" from test:indexer, which failed to apply',
    ]);
    expect(gov.services.maybe(INDEX)).toBeUndefined();
  });

  it("fails a provider that declares a service but does not provide it, and a second provider of the same service", async () => {
    const log: string[] = [];
    const lazy = definePlugin({ name: "test:lazy", configKey: "lazy", description: "", schema: z.object({}), defaults: {}, provides: [CACHE], apply() {} });
    const gov = await governor([lazy(), plugin("indexer", log, { provides: [INDEX] })(), plugin("second", log, { provides: [INDEX] })()]);
    expect(log).toEqual(["indexer"]);
    expect(gov.problems()).toEqual([
      'plugin "test:second" is not applied: it provides service "test:index", which test:indexer (earlier in preset "wired") provides already; remove one of them from the preset or turn one off',
      'plugin "test:lazy" failed in hook "apply": it declares provides "test:cache" but its apply did not call services.provide for it',
    ]);
  });

  it("refuses services a plugin did not declare, so every dependency is visible to the host", async () => {
    const log: string[] = [];
    const sneaky = plugin("sneaky", log, {}, (_p, _c, services) => void services.maybe(INDEX));
    const squatter = plugin("squatter", log, {}, (_p, _c, services) => services.provide(CACHE, new Map()));
    const gov = await governor([plugin("indexer", log, { provides: [INDEX] })(), sneaky(), squatter()]);
    expect(gov.problems()).toEqual([
      'plugin "test:sneaky" failed in hook "apply": plugin "test:sneaky" uses service "test:index" without declaring it; add it to the plugin\'s optional (or requires)',
      'plugin "test:squatter" failed in hook "apply": plugin "test:squatter" uses service "test:cache" without declaring it; add it to the plugin\'s provides',
    ]);
    expect(() => gov.services.provide(CACHE, new Map())).toThrow(/only be provided by a plugin's apply/);
    expect(() => gov.services.need(CACHE)).toThrow(/service "test:cache" is not provided in this governor \(preset "wired"\)/);
  });

  it("checks service names", () => {
    expect(() => defineService("index")).toThrow(/must be namespaced as scope:name/);
    expect(defineService("a:b")).toEqual({ name: "a:b" });
  });
});
