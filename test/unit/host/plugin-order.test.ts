/**
 * planApplyOrder on its own: providers before users (required and optional), preset order otherwise,
 * and what is left out (failed) or turned off with its provider, with reasons a user can act on.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, defineService, type GovernorPlugin, type ServiceKey } from "pi-governor";
import { planApplyOrder, type PluginEntry } from "../../../host/plugin-order.ts";

const INDEX = defineService<unknown>("t:index", { providedBy: "t:indexer" });
const CACHE = defineService<unknown>("t:cache");
const EXTRA = defineService<unknown>("t:extra");

function plugin(name: string, wiring: { provides?: ServiceKey<any>[]; requires?: ServiceKey<any>[]; optional?: ServiceKey<any>[] } = {}): GovernorPlugin<any> {
  return definePlugin({ name: `t:${name}`, configKey: name, description: "", schema: z.object({}), defaults: {}, ...wiring, apply() {} })();
}
const on = (...plugins: GovernorPlugin<any>[]): PluginEntry[] => plugins.map((plugin) => ({ plugin, enabled: true }));
const names = (plugins: Iterable<GovernorPlugin<any>>) => [...plugins].map((p) => p.name);

describe("planApplyOrder", () => {
  it("keeps the preset order when no service is involved", () => {
    const plan = planApplyOrder(on(plugin("c"), plugin("a"), plugin("b")), "p");
    expect(names(plan.order)).toEqual(["t:c", "t:a", "t:b"]);
    expect([plan.failed.size, plan.off.size, plan.providers.size]).toEqual([0, 0, 0]);
  });

  it("moves a provider before a user of a required or an optional service, and only as far as needed", () => {
    const plan = planApplyOrder(
      on(
        plugin("first"),
        plugin("user", { requires: [INDEX] }),
        plugin("soft", { optional: [CACHE] }),
        plugin("indexer", { provides: [INDEX] }),
        plugin("cacher", { provides: [CACHE] }),
      ),
      "p",
    );
    expect(names(plan.order)).toEqual(["t:first", "t:indexer", "t:user", "t:cacher", "t:soft"]);
    expect(Object.fromEntries([...plan.providers].map(([k, p]) => [k, p.name]))).toEqual({ "t:index": "t:indexer", "t:cache": "t:cacher" });
  });

  it("an optional service nobody provides is no problem", () => {
    const plan = planApplyOrder(on(plugin("soft", { optional: [CACHE] })), "p");
    expect(names(plan.order)).toEqual(["t:soft"]);
    expect(plan.failed.size).toBe(0);
  });

  it("leaves out a second provider of one service, naming the first and the preset", () => {
    const second = plugin("second", { provides: [INDEX] });
    const plan = planApplyOrder(on(plugin("first", { provides: [INDEX] }), second), "kota");
    expect(names(plan.order)).toEqual(["t:first"]);
    expect(plan.failed.get(second)).toBe(
      'it provides service "t:index", which t:first (earlier in preset "kota") provides already; remove one of them from the preset or turn one off',
    );
  });

  it("a disabled plugin is never ordered, and does not count as a second provider", () => {
    const plan = planApplyOrder([{ plugin: plugin("old", { provides: [INDEX] }), enabled: false }, ...on(plugin("indexer", { provides: [INDEX] }))], "p");
    expect(names(plan.order)).toEqual(["t:indexer"]);
    expect(plan.failed.size).toBe(0);
  });

  it("a missing required service fails the plugin, saying which plugin to add (or any provider) or how to turn it off", () => {
    const a = plugin("a", { requires: [INDEX] });
    const b = plugin("b", { requires: [EXTRA] });
    const plan = planApplyOrder(on(a, b), "p");
    expect(plan.order).toEqual([]);
    expect(plan.failed.get(a)).toBe(
      'it needs service "t:index", which no plugin in preset "p" provides; add t:indexer to the preset or set "a": { "enabled": false }',
    );
    expect(plan.failed.get(b)).toContain("add a plugin that provides it to the preset");
  });

  it("a failure travels down a chain of needs (to a fixpoint), each naming the provider it waited for", () => {
    const cacher = plugin("cacher", { provides: [CACHE], requires: [EXTRA] });
    const indexer = plugin("indexer", { provides: [INDEX], requires: [CACHE] });
    const user = plugin("user", { requires: [INDEX] });
    const plan = planApplyOrder(on(user, indexer, cacher, plugin("free")), "p");
    expect(names(plan.order)).toEqual(["t:free"]);
    expect(plan.failed.get(indexer)).toMatch(/^it needs service "t:cache" from t:cacher, which is not applied \(t:cacher: it needs service "t:extra"/);
    expect(plan.failed.get(user)).toMatch(/^it needs service "t:index" from t:indexer, which is not applied/);
  });

  it("a provider turned off in the config turns its users off (not failed), down the chain", () => {
    const user = plugin("user", { requires: [INDEX] });
    const chained = plugin("chained", { requires: [CACHE] });
    const cacher = plugin("cacher", { provides: [CACHE], requires: [INDEX] });
    const plan = planApplyOrder([{ plugin: plugin("indexer", { provides: [INDEX] }), enabled: false }, ...on(user, chained, cacher)], "p");
    expect(plan.order).toEqual([]);
    expect(plan.failed.size).toBe(0);
    expect(plan.off.get(user)).toBe('needs service "t:index" from t:indexer ("indexer"), which is off');
    expect(plan.off.get(chained)).toMatch(/^needs service "t:cache" from t:cacher, which is off \(it needs service "t:index"/);
  });

  it("a cycle fails its members with the path and the plugins waiting on it; the rest is ordered", () => {
    const a = plugin("a", { provides: [INDEX], requires: [CACHE] });
    const b = plugin("b", { provides: [CACHE], optional: [INDEX] });
    const c = plugin("c", { requires: [INDEX] });
    const plan = planApplyOrder(on(a, b, c, plugin("free")), "p");
    expect(names(plan.order)).toEqual(["t:free"]);
    expect(plan.failed.get(a)).toBe(
      'its services form a cycle: t:a needs "t:cache" from t:b, which needs "t:index" from t:a; remove one of these dependencies or one of the plugins',
    );
    expect(plan.failed.get(c)).toMatch(/^it waits for plugins whose services form a cycle: t:a needs "t:cache" from t:b/);
  });

  it("a plugin that provides a service it also uses is not a cycle", () => {
    const self = plugin("self", { provides: [INDEX], optional: [INDEX] });
    const plan = planApplyOrder(on(self), "p");
    expect(names(plan.order)).toEqual(["t:self"]);
  });
});
