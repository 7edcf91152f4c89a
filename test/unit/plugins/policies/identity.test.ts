import { describe, expect, it } from "vitest";
import type { McpReach, ToolInfo } from "pi-governor";
import { piHashedIdentity, piMcpIdentity, piMcpToolName, piServerCutIdentity, serverCutIdentity } from "../../../../lib/mcp-identity/tool-identity.ts";
import { allowGlobFor, CallIdentities, type CallSubject, decideSubjects, globNames, serverNamed } from "../../../../plugins/policies/identity.ts";

const tool = (name: string, mcp?: { server: string; tool: string }): ToolInfo => ({
  name,
  description: "",
  annotations: {},
  tags: [],
  owner: "t",
  ...(mcp ? { mcp } : {}),
});
const governed = [tool("acme_get-sum", { server: "acme", tool: "get-sum" }), tool("blob_read"), tool("context_search")];
const ruled = { deny: ["x"], rules: [], limits: [] };
const ids = (servers: string[] = []) =>
  new CallIdentities(
    ruled,
    () => governed,
    () => servers,
  );
const reach = (server: string, t: string): McpReach => ({ targets: [{ server, tool: t }], everyServer: false });
const subjectsOf = (call: { toolName: string; mcp?: McpReach }, servers?: string[]) => ids(servers).subjects(call) as CallSubject[];
const names = (glob: string, call: { toolName: string; mcp?: McpReach }, servers?: string[]) => subjectsOf(call, servers).some((s) => globNames(glob, s));

describe("a call's names under the rules", () => {
  it("a glob in either spelling names the server's tool on both sides, - and _ alike", () => {
    const managed = { toolName: "acme_get-sum", mcp: reach("acme", "get-sum") };
    const pis = { toolName: "mcp__acme__get_sum", mcp: reach("acme", "get_sum") };
    for (const glob of ["mcp__acme__get_sum", "mcp__acme__get-sum", "mcp__acme__*", "acme_get-sum", "acme_get_sum", "acme_*", "mcp__*", "*"]) {
      expect(names(glob, managed), glob).toBe(true);
      expect(names(glob, pis), glob).toBe(true);
    }
    for (const glob of ["mcp__acme__echo*", "mcp__acmee__*", "acmee_*", "get_sum", "mcp__other__*"]) {
      expect(names(glob, managed), glob).toBe(false);
      expect(names(glob, pis), glob).toBe(false);
    }
  });

  it("pi-governor's spelling is not used where it is another tool's name: a rule for blob_read does not catch pi's server blob", () => {
    const piBlob = { toolName: "mcp__blob__read", mcp: reach("blob", "read") };
    expect(names("blob_read", piBlob)).toBe(false);
    expect(names("mcp__blob__*", piBlob)).toBe(true);
    const piTool = { toolName: "mcp__tool__search", mcp: reach("tool", "search") }; // tool_search is pi's own
    expect(names("tool_search", piTool)).toBe(false);
    expect(names("blob_read", { toolName: "blob_read" })).toBe(true);
  });

  it("a listing of every server is one subject per server, pi's configured ones included; too many is refused while anything is ruled", () => {
    const listing = { toolName: "list_mcp_resources", mcp: { targets: [{ server: "acme", tool: "list_mcp_resources" }], everyServer: true } };
    expect(subjectsOf(listing, ["docs"]).map((s) => s.mcp?.server)).toEqual(["acme", "docs"]);
    expect(names("mcp__docs__*", listing, ["docs"])).toBe(true);
    const none = { toolName: "list_mcp_resources", mcp: { targets: [], everyServer: true } };
    expect(ids().subjects(none)).toEqual([{ toolName: "list_mcp_resources" }]);
    const many = Array.from({ length: 257 }, (_, i) => `s${i}`);
    expect(ids(many).subjects(none)).toMatch(/^Refused: list_mcp_resources without "server" reaches more MCP servers/);
    // mcp.json named more servers than were read: refused too; without any rule it runs.
    expect(
      new CallIdentities(
        ruled,
        () => governed,
        () => undefined,
      ).subjects(none),
    ).toMatch(/^Refused/);
    const unruled = new CallIdentities(
      { deny: [], rules: [], limits: [] },
      () => governed,
      () => undefined,
    );
    expect(unruled.subjects(none)).toEqual([{ toolName: "list_mcp_resources" }]);
    // pi may reach servers it cannot list (an extension's): refused while anything is ruled.
    const incomplete = { toolName: "list_mcp_resources", mcp: { targets: [], everyServer: true, incomplete: true } };
    expect(ids(["docs"]).subjects(incomplete)).toMatch(/^Refused: list_mcp_resources without "server" may reach MCP servers pi does not list/);
    expect(unruled.subjects(incomplete)).toEqual([{ toolName: "list_mcp_resources" }]);
  });

  it("the strictest decision over the subjects wins, whatever the order of the servers", () => {
    const listing = { toolName: "list_mcp_resources", mcp: { targets: [], everyServer: true } };
    const rules = [
      { tools: "mcp__open__*", action: "allow" as const },
      { tools: "mcp__asked__*", action: "ask" as const },
    ];
    for (const order of [
      ["open", "asked", "closed"],
      ["closed", "asked", "open"],
    ]) {
      const subjects = subjectsOf(listing, order);
      const d = decideSubjects({ rules, deny: ["mcp__closed__*"] }, subjects, { annotations: { readOnlyHint: true }, mcp: listing.mcp });
      expect(d.decision).toEqual({ action: "deny", rule: -1 });
      expect(d.subject.mcp?.server).toBe("closed");
      expect(serverNamed("list_mcp_resources", d)).toContain('it reaches every MCP server, "closed" among them');
      expect(serverNamed("mcp__closed__x", d)).toBe("");
      expect(decideSubjects({ rules, deny: [] }, subjects, { annotations: {}, mcp: listing.mcp }).decision).toEqual({ action: "ask", rule: 1 });
    }
  });
});

describe("the allow line a refusal suggests", () => {
  // Break seen failing: the bare "read_mcp_resource" allowed every server's resources.
  it("names the server for pi's resource tools, so allowing one server's resources allows no other", () => {
    const rules = [{ tools: "mcp__acme__*", action: "ask" as const }];
    const read = { toolName: "read_mcp_resource", mcp: reach("acme", "read_mcp_resource"), annotations: {} };
    const decided = decideSubjects({ deny: [], rules }, subjectsOf(read), read);
    const glob = allowGlobFor("read_mcp_resource", decided);
    expect(glob).toBe("mcp__acme__read_mcp_resource");
    const other = { toolName: "read_mcp_resource", mcp: reach("other", "read_mcp_resource") };
    expect(names(glob, read)).toBe(true);
    expect(names(glob, other)).toBe(false);
    const own = { toolName: "mcp__acme__echo", mcp: reach("acme", "echo"), annotations: {} };
    expect(allowGlobFor("mcp__acme__echo", decideSubjects({ deny: [], rules }, subjectsOf(own), own))).toBe("mcp__acme__echo");
  });
});

describe("pi's hashed tool names (a name over 64 characters, or one two tools share)", () => {
  const LONG = "drop_all_tables_and_wipe_backups_immediately";
  const long = { server: "production-dbs", tool: LONG };
  const cutName = piMcpToolName(long);
  const cut = {
    toolName: cutName,
    mcp: { targets: [piMcpIdentity(cutName, { name: "mcp__production_dbs", aliases: ["production-dbs"] })!], everyServer: false },
  };
  cut.mcp.targets.push(piHashedIdentity(cutName, cut.mcp.targets[0]!)!);
  const decide = (rules: Array<{ tools: string; action: "allow" | "deny" | "ask" }>, deny: string[] = []) => {
    const config = { rules, deny, limits: [] };
    const subjects = new CallIdentities(
      config,
      () => governed,
      () => [],
    ).subjects(cut) as CallSubject[];
    return decideSubjects(config, subjects, { annotations: {}, mcp: cut.mcp }).decision;
  };

  it("a deny or ask glob that may name the cut tool holds, in either spelling", () => {
    for (const glob of [`production-dbs_${LONG}`, `mcp__production_dbs__${LONG}`, "mcp__production_dbs__drop_*", "*_immediately", cutName]) {
      expect(decide([], [glob]), glob).toEqual({ action: "deny", rule: -1 });
      expect(decide([{ tools: glob, action: "ask" }]), glob).toEqual({ action: "ask", rule: 0 });
    }
    expect(decide([], ["mcp__production_dbs__status", "mcp__other__*", "production_dbs_x*"])).toBeUndefined();
  });

  it("an allow glob counts only when it surely names the tool: a prefix with *, pi's name, or the exact name (pi's hash tells)", () => {
    const denyRest = { tools: "*", action: "deny" as const };
    for (const glob of ["mcp__production_dbs__*", "production-dbs_drop_*", cutName, `production-dbs_${LONG}`, `mcp__production-dbs__${LONG}`]) {
      expect(decide([{ tools: glob, action: "allow" }, denyRest]), glob).toEqual({ action: "allow", rule: 0 });
    }
    // Another tool with the same start, or a name pi's hash does not confirm: not allowed by it.
    for (const glob of [`production-dbs_${LONG}_then_more`, `production_dbs_${LONG.replace("immediately", "later")}`, "*_immediately"]) {
      expect(decide([{ tools: glob, action: "allow" }, denyRest]), glob).toEqual({ action: "deny", rule: 1 });
    }
  });

  it("a managed server's tool also goes by the name pi would give it: a rule written with pi's hashed name holds after the hand-over", () => {
    const handed = new CallIdentities(
      ruled,
      () => [
        tool(`production-dbs_${LONG}`, long),
        tool("acme_wipe-all", { server: "acme", tool: "wipe-all" }),
        tool("acme_wipe_all", { server: "acme", tool: "wipe_all" }),
      ],
      () => [],
    );
    const subject = handed.subjectOf(`production-dbs_${LONG}`, long);
    expect(globNames(cutName, subject)).toBe(true);
    const dash = handed.subjectOf("acme_wipe-all", { server: "acme", tool: "wipe-all" });
    expect(globNames(piMcpToolName({ server: "acme", tool: "wipe-all" }, true), dash)).toBe(true);
    expect(globNames(piMcpToolName({ server: "acme", tool: "wipe_all" }, true), dash)).toBe(false);
  });
});

describe("a name pi cut inside the server's name (a server name of about 50 characters)", () => {
  const SERVER = "production-database-cluster-primary-eu-west-1-critical-xyz";
  const TWIN = "production-database-cluster-primary-eu-west-1-critical-abc";
  const wipe = piMcpToolName({ server: SERVER, tool: "wipe" });
  const status = piMcpToolName({ server: SERVER, tool: "status" });
  const decide = (
    toolName: string,
    mcp: McpReach,
    config: { deny?: string[]; rules?: Array<{ tools: string; action: "allow" | "deny" | "ask" }> },
    configured: string[] = [],
  ) => {
    const full = { deny: config.deny ?? [], rules: config.rules ?? [], limits: [] };
    const subjects = new CallIdentities(
      full,
      () => governed,
      () => configured,
    ).subjects({ toolName, mcp }) as CallSubject[];
    return decideSubjects(full, subjects, { annotations: {}, mcp }).decision;
  };
  const byNamespace = (toolName: string): McpReach => ({
    targets: [piServerCutIdentity(toolName, { name: `mcp__${SERVER.replace(/-/g, "_")}`, aliases: [SERVER] })!],
    everyServer: false,
  });

  it("pi's name keeps only the start of the server's name", () => {
    expect(wipe).toMatch(/^mcp__production_database_cluster_primary_eu_west_1_crit_[0-9a-f]{8}$/);
    expect(serverCutIdentity(wipe, SERVER)).toMatchObject({ server: SERVER, tool: "", truncated: true });
    expect(serverCutIdentity(wipe, "production-database")).toBeUndefined();
    expect(serverCutIdentity("mcp__short__wipe", SERVER)).toBeUndefined();
  });

  it("a deny of the server's tools holds for every tool; a tool's exact name, in either spelling, only for that tool (pi's hash tells)", () => {
    for (const glob of [`mcp__${SERVER.replace(/-/g, "_")}__*`, `${SERVER}_*`, "mcp__production_*"]) {
      expect(decide(wipe, byNamespace(wipe), { deny: [glob] }), glob).toEqual({ action: "deny", rule: -1 });
      expect(decide(status, byNamespace(status), { deny: [glob] }), glob).toEqual({ action: "deny", rule: -1 });
    }
    for (const glob of [`mcp__${SERVER.replace(/-/g, "_")}__wipe`, `${SERVER}_wipe`, `mcp__${SERVER}__wipe`]) {
      expect(decide(wipe, byNamespace(wipe), { deny: [glob] }), glob).toEqual({ action: "deny", rule: -1 });
      expect(decide(status, byNamespace(status), { deny: [glob] }), glob).toBeUndefined();
    }
    expect(decide(wipe, byNamespace(wipe), { deny: [`${TWIN}_*`, `${TWIN}_wipe`] })).toBeUndefined();
  });

  it("an allow counts only when sure: every tool of the server, or the exact tool by pi's hash", () => {
    const denyRest = { tools: "*", action: "deny" as const };
    for (const glob of [`${SERVER}_*`, `mcp__${SERVER.replace(/-/g, "_")}__*`, `${SERVER}_wipe`]) {
      expect(decide(wipe, byNamespace(wipe), { rules: [{ tools: glob, action: "allow" }, denyRest] }), glob).toEqual({ action: "allow", rule: 0 });
    }
    for (const glob of [`${SERVER}_w*`, `${SERVER}_status`, `${TWIN}_*`]) {
      expect(decide(wipe, byNamespace(wipe), { rules: [{ tools: glob, action: "allow" }, denyRest] }), glob).toEqual({ action: "deny", rule: 1 });
    }
  });

  it("without a namespace, every server pi runs whose name fits is judged, the strictest wins; the hash picks the exact one", () => {
    const cutOnly: McpReach = { targets: [], everyServer: false, serverCut: true };
    // Neither server named by pi: the mcp.json servers whose names fit.
    expect(decide(wipe, cutOnly, { deny: [`${SERVER}_*`] }, [TWIN, SERVER, "docs"])).toEqual({ action: "deny", rule: -1 });
    expect(decide(wipe, cutOnly, { deny: [`${TWIN}_*`] }, [TWIN, SERVER])).toEqual({ action: "deny", rule: -1 });
    expect(decide(wipe, cutOnly, { rules: [{ tools: `${TWIN}_*`, action: "ask" }] }, [SERVER, TWIN])).toEqual({ action: "ask", rule: 0 });
    // The exact name is the twin's tool by its hash only if it is that tool.
    expect(decide(wipe, cutOnly, { deny: [`${TWIN}_wipe`] }, [TWIN, SERVER])).toBeUndefined();
    expect(decide(wipe, cutOnly, { deny: [`${SERVER}_wipe`] }, [TWIN, SERVER])).toEqual({ action: "deny", rule: -1 });
    expect(decide(wipe, cutOnly, { deny: ["docs_*"] }, [TWIN, SERVER, "docs"])).toBeUndefined();
  });
});
