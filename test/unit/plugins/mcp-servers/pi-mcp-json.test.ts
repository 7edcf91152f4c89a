import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_PI_MCP_JSON_BYTES, piServerStates, readHandedOver, readPiMcpJson } from "../../../../plugins/mcp-servers/pi-mcp-json.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "pigov-pimcp-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const write = (data: unknown) => writeFileSync(join(dir, "mcp.json"), typeof data === "string" ? data : JSON.stringify(data));

describe("pi's mcp.json, read for mcp.fromPi", () => {
  it("takes command, args (~/ expanded), cwd and env (${VAR} from pi's environment) and the tuning pi-governor adds", () => {
    write({
      mcpServers: {
        gh: { command: "~/bin/gh-mcp", args: ["--root", "~/src"], cwd: "~/work", env: { TOKEN: "${GH_TOKEN}", MISSING: "x${NOPE}y" }, enabled: false },
      },
    });
    const [h] = readHandedOver(readPiMcpJson(dir), [{ name: "gh", replayTools: ["search"] }], { HOME: "/home/u", GH_TOKEN: "t0k" });
    expect(h).toEqual({
      name: "gh",
      enabledInPi: false,
      options: {
        replayTools: ["search"],
        command: "/home/u/bin/gh-mcp",
        args: ["--root", "/home/u/src"],
        cwd: "/home/u/work",
        env: { TOKEN: "t0k", MISSING: "xy" },
      },
    });
  });

  it("says why a server cannot be taken: missing, HTTP, a !command value, a file that is not JSON", () => {
    write({
      mcpServers: { web: { url: "https://example.invalid/mcp" }, shell: { command: "x", env: { K: "!cat ~/.secret" } }, __proto__: { command: "evil" } },
    });
    const file = readPiMcpJson(dir);
    const out = readHandedOver(file, ["web", "shell", "ghost", "__proto__"] as never, {});
    expect(out.map((h) => ("problem" in h ? h.problem : "ok"))).toEqual([
      expect.stringContaining("not a stdio server"),
      expect.stringContaining("runs a command"),
      expect.stringContaining('has no server "ghost"'),
      expect.stringContaining('has no server "__proto__"'),
    ]);
    write("{ not json");
    expect(readHandedOver(readPiMcpJson(dir), ["gh"], {})[0]).toMatchObject({ problem: expect.stringContaining("cannot read") });
  });

  it("refuses a link, a FIFO and a file over the cap, without hanging or following", () => {
    const target = join(dir, "elsewhere.json");
    writeFileSync(target, JSON.stringify({ mcpServers: { gh: { command: "gh" } } }));
    symlinkSync(target, join(dir, "mcp.json"));
    expect(readPiMcpJson(dir)).toMatchObject({ error: "it is a symbolic link" });
    rmSync(join(dir, "mcp.json"));
    execFileSync("mkfifo", [join(dir, "mcp.json")]);
    expect(readPiMcpJson(dir)).toMatchObject({ error: "not a regular file" });
    rmSync(join(dir, "mcp.json"));
    write(`{"mcpServers":{},"pad":"${"x".repeat(MAX_PI_MCP_JSON_BYTES)}"}`);
    expect(readPiMcpJson(dir)).toMatchObject({ error: expect.stringContaining("larger than") });
  });

  it("no file is no servers; states say which servers pi runs", () => {
    expect(readPiMcpJson(dir)).toBeUndefined();
    expect(readHandedOver(undefined, ["gh"], {})[0]).toMatchObject({ problem: "pi's mcp.json does not exist" });
    write({ mcpServers: { a: { command: "a" }, b: { command: "b", enabled: false } } });
    expect(piServerStates(readPiMcpJson(dir))).toEqual([
      { name: "a", enabled: true },
      { name: "b", enabled: false },
    ]);
  });
});
