/**
 * Lists that protect the user add up across config sources: a project file can add to them but
 * never replace, shrink or empty what the global file or the environment set (a repository's
 * `"deny": []` once removed the user's global deny list, because arrays replaced whole on merge).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ConfigLayer, formatProblems, resolveConfig } from "pi-governor/host";
import { definePlugin } from "pi-governor";
import { presets } from "../../../../presets/index.ts";

/** Every shipped plugin once, by config key (the real schemas and declarations). */
const shipped = [...new Map(presets.flatMap((p) => p.plugins()).map((plugin) => [plugin.configKey, plugin])).values()];
const GLOBAL = "/home/u/.pi/agent/pi-governor.json";
const PROJECT = "/repo/.pi/pi-governor.json";
const global = (data: Record<string, unknown>): ConfigLayer => ({ kind: "global", source: GLOBAL, data });
const project = (data: Record<string, unknown>): ConfigLayer => ({ kind: "project", source: PROJECT, data });
const env = (data: Record<string, unknown>): ConfigLayer => ({ kind: "env", source: "env PI_GOVERNOR_CONFIG", data });
const value = (r: ReturnType<typeof resolveConfig>, section: string, key: string) => (r.values.get(section) as Record<string, unknown>)[key];

describe("policies.deny: the list in force is the union of every source's", () => {
  it("a project's empty list does not remove the global deny", () => {
    const r = resolveConfig(shipped, [global({ policies: { deny: ["bash", "write"] } }), project({ policies: { deny: [] } })]);
    expect(value(r, "policies", "deny")).toEqual(["bash", "write"]);
  });

  it("a project's own list adds to the global one, never replaces it", () => {
    const r = resolveConfig(shipped, [global({ policies: { deny: ["bash", "write"] } }), project({ policies: { deny: ["read", "bash"] } })]);
    expect(value(r, "policies", "deny")).toEqual(["bash", "write", "read"]);
    expect(r.problems).toEqual([]);
  });

  it("the environment adds to the global file too, and a project's entries come after the user's", () => {
    const r = resolveConfig(shipped, [
      global({ policies: { deny: ["bash"] } }),
      project({ policies: { deny: ["read"] } }),
      env({ policies: { deny: ["write"] } }),
    ]);
    expect(value(r, "policies", "deny")).toEqual(["bash", "write", "read"]);
  });

  it("a project that fills the list to its bound cannot push the user's entries out or reset the list", () => {
    const flood = Array.from({ length: 100 }, (_, i) => `junk_${i}`);
    const r = resolveConfig(shipped, [global({ policies: { deny: ["bash", "write"] } }), project({ policies: { deny: flood } })]);
    const deny = value(r, "policies", "deny") as string[];
    expect(deny.slice(0, 2)).toEqual(["bash", "write"]);
    expect(deny).toHaveLength(100);
    expect(formatProblems(r.problems)).toEqual([
      `${PROJECT}: policies.deny: 2 entries not added: the list in force would break its bound; the user's entries are kept`,
    ]);
  });

  it("the environment's entries go before a project's when the bound is reached", () => {
    const flood = Array.from({ length: 100 }, (_, i) => `junk_${i}`);
    const r = resolveConfig(shipped, [
      global({ policies: { deny: ["bash"] } }),
      project({ policies: { deny: flood } }),
      env({ policies: { deny: ["write"] } }),
    ]);
    expect((value(r, "policies", "deny") as string[]).slice(0, 2)).toEqual(["bash", "write"]);
  });

  it("a project's list with a bad entry, or a value that is not a list, leaves the user's list as it is", () => {
    const r = resolveConfig(shipped, [global({ policies: { deny: ["bash"] } }), project({ policies: { deny: ["read", "bad glob!"] } })]);
    expect(value(r, "policies", "deny")).toEqual(["bash"]);
    const notList = resolveConfig(shipped, [global({ policies: { deny: ["bash"] } }), project({ policies: { deny: "" } })]);
    expect(value(notList, "policies", "deny")).toEqual(["bash"]);
  });
});

describe("every list that protects the user adds up the same way", () => {
  const cases: Array<{ key: string; user: unknown[]; projects: unknown[] }> = [
    { key: "policies.deny", user: ["mcp__github__delete_*"], projects: ["x"] },
    {
      key: "redact.projectPatterns",
      user: [{ name: "acme", prefix: "acme_live_", chars: "A-Za-z0-9", minLength: 20, maxLength: 40 }],
      projects: [{ name: "repo", prefix: "repo_tok_", chars: "a-z", minLength: 10, maxLength: 20 }],
    },
    { key: "recall.exclude", user: ["secret_reader"], projects: ["noisy"] },
    { key: "executionLog.exclude", user: ["secret_tool"], projects: ["noisy"] },
    { key: "prune.protectedFilePatterns", user: ["AGENTS.md", "docs/spec/**"], projects: ["*.lock"] },
    { key: "prune.neverPruneTools", user: ["kota_status"], projects: ["mine"] },
    { key: "prune.pinTools", user: ["kota_impact"], projects: ["mine"] },
  ];
  for (const { key, user, projects } of cases) {
    const [section, name] = key.split(".") as [string, string];
    it(`${key}: a project's [] keeps the user's entries; its own entries are added`, () => {
      const emptied = resolveConfig(shipped, [global({ [section]: { [name]: user } }), project({ [section]: { [name]: [] } })]);
      expect(value(emptied, section, name)).toEqual(user);
      const added = resolveConfig(shipped, [global({ [section]: { [name]: user } }), project({ [section]: { [name]: projects } })]);
      expect(value(added, section, name)).toEqual([...user, ...projects]);
    });
  }

  it("prune.protectedFilePatterns: project patterns that would break the 2,000-character total are left out, the user's stay", () => {
    const long = Array.from({ length: 10 }, (_, i) => `${"d".repeat(180)}/${i}`);
    const r = resolveConfig(shipped, [
      global({ prune: { protectedFilePatterns: long } }),
      project({ prune: { protectedFilePatterns: ["x".repeat(199), "AGENTS.md"] } }),
    ]);
    expect(value(r, "prune", "protectedFilePatterns")).toEqual([...long, "AGENTS.md"]);
    expect(formatProblems(r.problems)).toEqual([
      `${PROJECT}: prune.protectedFilePatterns: 1 entry not added: the list in force would break its bound; the user's entries are kept`,
    ]);
  });

  it("without a list from the user, the default holds and a project adds to it", () => {
    const plugin = definePlugin({
      name: "t:lists",
      configKey: "lists",
      description: "",
      schema: z.object({ keep: z.array(z.string().max(10)).max(4) }),
      defaults: { keep: ["a"] },
      additiveKeys: ["keep"],
      apply() {},
    });
    expect(value(resolveConfig([plugin()], [project({ lists: { keep: [] } })]), "lists", "keep")).toEqual(["a"]);
    expect(value(resolveConfig([plugin()], [project({ lists: { keep: ["b"] } })]), "lists", "keep")).toEqual(["a", "b"]);
    // The user's own file replaces the default (the user may drop a default entry), and the project adds.
    expect(value(resolveConfig([plugin()], [global({ lists: { keep: ["c"] } }), project({ lists: { keep: ["b"] } })]), "lists", "keep")).toEqual(["c", "b"]);
  });

  it("a list that is both trusted and additive, or not a list, is refused when the plugin is defined", () => {
    const spec = {
      name: "t:bad",
      configKey: "bad",
      description: "",
      schema: z.object({ keep: z.array(z.string().max(9)).max(3), n: z.number().max(3) }),
      apply() {},
    };
    expect(() => definePlugin({ ...spec, defaults: { keep: [], n: 1 }, additiveKeys: ["keep"], trustedKeys: ["keep"] })).toThrow(/both trusted and additive/);
    expect(() => definePlugin({ ...spec, defaults: { keep: [], n: 1 }, additiveKeys: ["n"] })).toThrow(/additive key "n" must be a list/);
  });
});

describe("keys that widen what runs are the user's alone", () => {
  const cases: Array<{ key: string; set: unknown }> = [
    // A call that is not safe to repeat (a write, a payment) would run again after a failure.
    { key: "retry.tools", set: ["mcp_bank_transfer"] },
    { key: "retry.onlySafeTools", set: false },
    { key: "retry.perTool", set: { mcp_bank_transfer: { enabled: true, maxAttempts: 10 } } },
    // A ladder re-issues a governed call with arguments the config chooses, after the gate let the first one through.
    { key: "budget.perTool", set: { fs_write_file: { ladder: [{ path: "/home/u/.bashrc" }] } } },
  ];
  for (const { key, set } of cases) {
    const [section, name] = key.split(".") as [string, string];
    it(`${key} from a project file is ignored and reported`, () => {
      const r = resolveConfig(shipped, [project({ [section]: { [name]: set } })]);
      const defaults = shipped.find((p) => p.configKey === section)!.defaults as Record<string, unknown>;
      expect(value(r, section, name)).toEqual(defaults[name]);
      expect(r.ignoredTrustedKeys).toEqual([{ source: PROJECT, section, key: name }]);
      const fromUser = resolveConfig(shipped, [global({ [section]: { [name]: set } })]);
      expect(fromUser.problems).toEqual([]);
    });
  }
});

describe("an old spelling is no way around a decision", () => {
  it("budget.tools (renamed to the trusted budget.perTool) from a project file is ignored too", () => {
    const r = resolveConfig(shipped, [project({ budget: { tools: { fs_write_file: { ladder: [{ path: "/home/u/.bashrc" }] } } } })]);
    expect((value(r, "budget", "perTool") as Record<string, unknown>).fs_write_file).toBeUndefined();
    expect(r.ignoredTrustedKeys).toEqual([{ source: PROJECT, section: "budget", key: "perTool" }]);
  });
});
