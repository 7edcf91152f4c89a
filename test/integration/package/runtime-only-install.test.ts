/**
 * The install the README gives pi users: a clone with `npm ci --omit=dev`, no devDependencies, so no
 * typebox (pi hands typebox to extensions, not to a shell command). Every `pi-governor` command and
 * its `--help` must run there, and a dependency that is really missing is named with its fix.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { copyClone, npm, repoRoot, run } from "../../helpers/package-install.ts";
import { runPiCli } from "../../helpers/pi-cli.ts";

const clone = mkdtempSync(join(tmpdir(), "gov-runtime-only-"));
afterAll(() => rmSync(clone, { recursive: true, force: true }), 60_000);

beforeAll(async () => {
  copyClone(clone);
  // --ignore-scripts: no better-sqlite3 build (a minute); on Node 20 the SQLite commands then say so.
  await npm(["ci", "--omit=dev", "--ignore-scripts"], clone);
}, 180_000);

const cli = (...args: string[]) => run(process.execPath, ["bin/pi-governor.mjs", ...args], clone, {}, 60_000);

// Each command is a fresh process that compiles the TypeScript sources (jiti): seconds each on a busy machine.
describe("pi-governor from a runtime-only install (npm ci --omit=dev)", { timeout: 120_000 }, () => {
  it("has no typebox and no devDependencies, as pi users install it", () => {
    expect(existsSync(join(clone, "node_modules", "tapable"))).toBe(true);
    expect(existsSync(join(clone, "node_modules", "typebox"))).toBe(false);
    expect(existsSync(join(clone, "node_modules", "vitest"))).toBe(false);
  });

  it("prints the usage and every command's --help", async () => {
    const usage = await cli("--help");
    expect({ code: usage.code, stderr: usage.stderr }).toEqual({ code: 0, stderr: "" });
    for (const name of ["replay", "stats", "search", "schema", "doctor"]) {
      expect(usage.stdout).toContain(`  ${name}`);
      const help = await cli(name, "--help");
      expect({ name, code: help.code, stderr: help.stderr }).toEqual({ name, code: 0, stderr: "" });
      expect(help.stdout).toMatch(new RegExp(`^usage: pi-governor ${name}`));
    }
  });

  it("runs schema, replay, doctor, stats and search", async () => {
    const schema = await cli("schema");
    expect({ code: schema.code, stderr: schema.stderr }).toEqual({ code: 0, stderr: "" });
    expect(Object.keys((JSON.parse(schema.stdout) as { properties: object }).properties)).toEqual(expect.arrayContaining(["kota", "prune", "blobs", "recall"]));

    const replay = await cli("replay", "--no-chart");
    expect({ code: replay.code, stderr: replay.stderr }).toEqual({ code: 0, stderr: "" });
    expect(replay.stdout).toMatch(/turn/);

    // Exit 1 when a check fails (no pi, no Bun here); what matters is that every check ran.
    const doctor = await cli("doctor", "--json");
    expect(doctor.stderr).toBe("");
    const checks = (JSON.parse(doctor.stdout) as { results: Array<{ name: string; status: string }> }).results;
    expect(checks.find((c) => c.name === "preset")).toMatchObject({ status: "ok" });
    expect(checks.find((c) => c.name === "config")).toMatchObject({ status: "ok" });

    const stats = await cli("stats");
    expect(stats.stderr).not.toMatch(/Cannot find module/);
    // Node 20 without a built better-sqlite3 has no SQLite driver: stats says which and how to fix it.
    if (stats.code === 0) expect(stats.stdout).toMatch(/No execution log at .* yet/);
    else expect(stats.stderr).toMatch(/no SQLite driver loads.*Fix:/s);

    const search = await cli("search", "anything");
    expect(search.stderr).toMatch(/no recall index at .* yet/);
  });

  it("names a runtime dependency that is really missing, and the install that brings it", async () => {
    rmSync(join(clone, "node_modules", "tapable"), { recursive: true, force: true });
    const doctor = await cli("doctor");
    expect(doctor.code).toBe(3);
    expect(doctor.stderr).toContain(`pi-governor doctor: the module "tapable" is not installed`);
    expect(doctor.stderr).toMatch(/Fix: run `npm ci --omit=dev` in .*gov-runtime-only-/);
    expect(doctor.stderr).not.toMatch(/Require stack/);

    // The loader itself: named by bin/pi-governor.mjs before any TypeScript runs.
    rmSync(join(clone, "node_modules", "jiti"), { recursive: true, force: true });
    const usage = await cli("--help");
    expect(usage.code).toBe(3);
    expect(usage.stderr).toMatch(/^pi-governor: the module "jiti" is not installed .*Fix: run `npm ci --omit=dev` in .*gov-runtime-only-/);
  });
});

describe("pi-governor without the install step (a local path pi loads as it is)", { timeout: 120_000 }, () => {
  it("pi fails with the `Cannot find module` the README names for this pi", async () => {
    const bare = mkdtempSync(join(tmpdir(), "gov-no-install-"));
    try {
      copyClone(bare);
      const run = await runPiCli({ extensions: [bare], script: [{ text: "hi" }], prompt: "hello" });
      const missing = /Cannot find (?:module|package) '([^']+)'/.exec(run.stderr)?.[1];
      expect(missing, run.stderr).toBeDefined();
      const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
      expect(readme).toContain(`\`Cannot find module '${missing}'\``);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
