/**
 * What a newcomer reads first: the README says what pi-governor does for them before the pipeline
 * vocabulary, its Quick start commands exist, the install steps need no placeholder to fill in, and
 * the docs spell the command line one way.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

/** The Markdown files a user reads: README, docs/, and the plugins' READMEs. */
function userDocs(): Array<{ path: string; text: string }> {
  const paths = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  for (const plugin of readdirSync(join(root, "plugins"))) {
    try {
      readFileSync(join(root, "plugins", plugin, "README.md"));
      paths.push(`plugins/${plugin}/README.md`);
    } catch {
      // No README.
    }
  }
  return paths.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));
}

describe("README for a newcomer", () => {
  it("opens with what pi-governor does for the user (cheaper sessions, MCP servers that survive, the way back) before the pipeline words", () => {
    const opening = readme.slice(0, readme.indexOf("## Quick start"));
    const firstPipelineWord = Math.min(...["hook pipeline", "plugins (", "presets assemble"].map((w) => opening.indexOf(w)).filter((i) => i >= 0));
    for (const benefit of ["Cheaper long sessions", "MCP servers that survive crashes and hangs", "A way back to anything pruned"]) {
      const at = opening.indexOf(benefit);
      expect(at, benefit).toBeGreaterThan(0);
      expect(at, benefit).toBeLessThan(firstPipelineWord);
    }
    // The Quick start stays near the top.
    expect(readme.split("\n").findIndex((l) => l.startsWith("## Quick start"))).toBeLessThan(40);
  });

  it("the Quick start commands exist: npm ci && npm run replay, npm test", () => {
    const quick = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Use it with pi"));
    expect(quick).toContain("npm ci && npm run replay");
    expect(quick).toMatch(/^npm test\b/m);
    expect(scripts.replay).toMatch(/pi-governor\.mjs replay/);
    expect(scripts.test).toBeDefined();
  });

  it("install steps have no placeholder to fill in, and the notes on pi's own MCP support live in docs/pi-mcp.md, linked", () => {
    const install = readme.slice(readme.indexOf("## Use it with pi"), readme.indexOf("## Configuration"));
    expect(install).not.toMatch(/<owner>/);
    expect(install).not.toContain("### pi's own MCP support");
    expect(readme).toContain("(docs/pi-mcp.md)");
    expect(readFileSync(join(root, "docs/pi-mcp.md"), "utf8")).toMatch(/^# pi's own MCP support \(pi 1\.x\)/);
  });

  it("the docs spell the command line `pi-governor ...`, with one line saying node bin/pi-governor.mjs works from a clone", () => {
    const mentions = userDocs().flatMap(({ path, text }) =>
      text
        .split("\n")
        .filter((l) => l.includes("node bin/pi-governor.mjs"))
        .map((l) => `${path}: ${l}`),
    );
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toMatch(/^README\.md: From a clone, `node bin\/pi-governor\.mjs <command>` runs the same commands/);
  });
});

describe("commands the docs name", () => {
  it("a /governor command the default preset answers under /kota is named with /kota or /<root> beside it", async () => {
    const { createGovernor } = await import("pi-governor/host");
    const { kotaPreset } = await import("../../../presets/kota/index.ts");
    const governor = await createGovernor({ preset: kotaPreset, cwd: root, agentDir: join(root, "no-such-agent-dir"), env: {}, layers: [] });
    const names = [...governor.pipeline.commands.keys()];
    // What the default preset answers only under its own root (`/governor status` is always there, host/pi/commands.ts).
    const underKota = new Set(
      names.filter((c) => c.startsWith("kota ") && !names.includes(`governor ${c.slice(5)}`) && c !== "kota status").map((c) => c.slice(5)),
    );
    expect(underKota.has("unfold")).toBe(true);
    const wrong: string[] = [];
    for (const { path, text } of userDocs()) {
      // Paragraphs: a mention is fine when the same paragraph names the default preset's form or the generic one.
      for (const paragraph of text.split(/\n\s*\n/)) {
        for (const [, sub] of paragraph.matchAll(/\/governor ([a-z][a-z-]*)/g)) {
          if (underKota.has(sub!) && !paragraph.includes(`/kota ${sub}`) && !paragraph.includes(`/<root> ${sub}`)) wrong.push(`${path}: /governor ${sub}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
