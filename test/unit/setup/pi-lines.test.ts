/**
 * The pi line users run today is what `npm test` exercises by default: pi 1.6.0 (the devDependency,
 * `@earendil-works`) on a Node it supports (the `node` devDependency, Node 24, which npm scripts run
 * on). The README's table and CI name the same lines: the current one, and each folder in .ci/hosts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { piHost, repoRoot } from "../../helpers/pi-host.ts";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
const current = pkg.devDependencies["@earendil-works/pi-coding-agent"]!;
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const ci = readFileSync(join(repoRoot, ".ci/run"), "utf8");

/** True when `version` ("24.21.0") satisfies a ">=22.19" engines range. */
const atLeast = (version: string, range: string) => {
  const need = /^>=\s*(\d+)(?:\.(\d+))?/.exec(range);
  if (!need) return true;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > Number(need[1]) || (major === Number(need[1]) && minor >= Number(need[2] ?? 0));
};

describe("the pi lines", () => {
  it("npm test runs on the current pi (the devDependency, @earendil-works) and a Node that pi supports", (ctx) => {
    if (process.env.PI_GOVERNOR_PI_HOME) return ctx.skip("another pi line's pass (PI_GOVERNOR_PI_HOME)");
    expect(current).toMatch(/^\d+\.\d+\.\d+$/);
    expect(piHost.scope).toBe("@earendil-works");
    expect(piHost.version).toBe(current);
    const engines = (JSON.parse(readFileSync(join(piHost.codingAgentDir, "package.json"), "utf8")) as { engines?: { node?: string } }).engines?.node ?? "";
    expect(engines).toMatch(/^>=/);
    expect({ node: process.versions.node, ok: atLeast(process.versions.node, engines) }).toEqual({ node: process.versions.node, ok: true });
    // Node 24 comes with `npm ci`: npm scripts run on it.
    expect(existsSync(join(repoRoot, "node_modules", ".bin", "node"))).toBe(true);
  });

  it("the README's table marks the devDependency's pi as current; every line CI installs is in it, and CI runs each", () => {
    expect(readme).toMatch(new RegExp(`^\\| ${current.replace(/\./g, "\\.")} \\(current\\) \\| \`@earendil-works/pi-coding-agent\` \\|`, "m"));
    expect(readme.match(/\(current\)/g)).toHaveLength(1);
    expect(ci).toMatch(new RegExp(`pass 1: pi ${current.replace(/\./g, "\\.")} on Node 24`));
    for (const line of readdirSync(join(repoRoot, ".ci/hosts"))) {
      const host = JSON.parse(readFileSync(join(repoRoot, ".ci/hosts", line, "package.json"), "utf8")) as { dependencies: Record<string, string> };
      const [name, version] = Object.entries(host.dependencies).find(([n]) => n.endsWith("/pi-coding-agent"))!;
      expect(readme, line).toMatch(new RegExp(`^\\| ${version.replace(/\./g, "\\.")}( \\(legacy\\))? \\| \`${name}\` \\|`, "m"));
      expect(ci, line).toContain(`PI_GOVERNOR_PI_HOME=.ci/hosts/${line}`);
    }
  });
});
