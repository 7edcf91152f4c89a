import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { piMcpServers } from "../../../../plugins/policies/pi-mcp-servers.ts";

let dir: string;
let agentDir: string;
let cwd: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pigov-pimcp-"));
  agentDir = join(dir, "agent");
  cwd = join(dir, "project");
  mkdirSync(agentDir);
  mkdirSync(join(cwd, ".pi"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (path: string, servers: Record<string, unknown>) => writeFileSync(path, JSON.stringify({ mcpServers: servers }));

describe("the servers pi runs from its mcp.json files", () => {
  it("reads both files; a project entry overrides the user's (enabled only, or the whole entry)", () => {
    write(join(agentDir, "mcp.json"), {
      acme: { command: "a" },
      docs: { command: "d", enabled: false },
      off: { command: "o" },
      kept: { command: "k", enabled: false },
    });
    write(join(cwd, ".pi", "mcp.json"), {
      docs: { enabled: true },
      off: { enabled: false },
      kept: { command: "k2" },
      local: { url: "https://x" },
      "bad name!": {},
    });
    expect(Object.fromEntries(piMcpServers(agentDir, cwd).servers)).toEqual({ acme: true, docs: true, off: false, kept: true, local: true });
  });

  it("names no server from a file that cannot be read safely: not JSON, a link to a device, a FIFO, over 1 MiB", () => {
    writeFileSync(join(agentDir, "mcp.json"), "{ not json");
    symlinkSync("/dev/zero", join(cwd, ".pi", "mcp.json"));
    expect(piMcpServers(agentDir, cwd).servers.size).toBe(0);
    rmSync(join(agentDir, "mcp.json"));
    execFileSync("mkfifo", [join(agentDir, "mcp.json")]);
    expect(piMcpServers(agentDir, cwd).servers.size).toBe(0);
    rmSync(join(agentDir, "mcp.json"));
    writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { big: { command: "x", pad: "x".repeat(1_048_576) } } }));
    expect(piMcpServers(agentDir, cwd).servers.size).toBe(0);
  });

  it("takes at most 256 servers and says when there were more", () => {
    write(join(agentDir, "mcp.json"), Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`s${i}`, { command: "x" }])));
    const read = piMcpServers(agentDir, cwd);
    expect(read.servers.size).toBe(256);
    expect(read.truncated).toBe(true);
    expect(piMcpServers(join(dir, "none"), cwd)).toEqual({ servers: new Map(), truncated: false });
  });
});
