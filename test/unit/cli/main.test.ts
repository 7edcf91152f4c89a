import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../../cli/main.ts";
import { DEFAULT_SCHEMA_PATH } from "../../../cli/write-schema.ts";

const dir = mkdtempSync(join(tmpdir(), "gov-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe("pi-governor help texts", () => {
  it("the top-level help and replay --help say the same about what replay reads", async () => {
    const { RECENT_SESSIONS } = await import("../../../cli/replay/command.ts");
    const top = (await cli("--help")).out.split("\n").find((l) => l.trim().startsWith("replay"))!;
    const own = (await cli("replay", "--help")).out;
    for (const text of [top, own.replace(/\s+/g, " ")]) {
      expect(text).toMatch(/session\.jsonl \| dir \.\.\./);
      expect(text).toContain(`${RECENT_SESSIONS} most recent`);
      expect(text).toMatch(/bundled sample when you have none/);
    }
    expect((await cli("--help")).out).toContain("From a clone: node bin/pi-governor.mjs <command>");
  });

  it("search --help explains every option it accepts", async () => {
    const { out, code } = await cli("search", "--help");
    expect(code).toBe(0);
    for (const option of ["--session <id>", "--project <dir>", "--tool <name>", "--limit <n>", "--json", "--db <path>", "--blobs <dir>", "-h, --help"]) {
      expect(out).toMatch(new RegExp(`^  ${option.replace(/[-[\]<>]/g, (c) => `\\${c}`)} +\\S`, "m"));
    }
    expect(out.replace(/\s+/g, " ")).toMatch(/Exits 0 when something was found, 1 when nothing was/);
  });
});

describe("pi-governor subcommands", () => {
  it("--help prints the usage on stdout and exits 0 for every command", async () => {
    for (const name of ["replay", "stats", "schema", "doctor"]) {
      for (const flag of ["--help", "-h"]) {
        const r = await cli(name, flag);
        expect({ name, flag, code: r.code, err: r.err }).toEqual({ name, flag, code: 0, err: "" });
        expect(r.out).toMatch(new RegExp(`^usage: pi-governor ${name}`));
      }
    }
  });

  it("an unknown option exits 2 with the error (the command named, quotes balanced) and the usage on stderr", async () => {
    for (const name of ["replay", "stats", "search", "schema", "doctor"]) {
      const r = await cli(name, "--bogus");
      expect(r.code).toBe(2);
      const first = r.err.split("\n")[0]!;
      expect(first).toBe(`pi-governor ${name}: unknown option --bogus`);
      expect(r.err).toMatch(new RegExp(`usage: pi-governor ${name}`));
      expect(r.out).toBe("");
    }
    expect((await cli("replay", "--price", "cheap")).err).toMatch(/--price needs a non-negative number, got "cheap"/);
  });

  it("no command is a wrong argument: the usage on stderr, exit 2; a near miss is named", async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.out).toBe("");
    expect(none.err).toMatch(/^pi-governor: give a command\.\n\nusage: pi-governor <command>/);
    expect((await cli("--help")).code).toBe(0);
    const typo = await cli("stat");
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command "stat" \(did you mean "stats"\?\)/);
    expect((await cli("stats", "--jsno")).err.split("\n")[0]).toBe("pi-governor stats: unknown option --jsno (did you mean --json?)");
    expect((await cli("search", "--limt", "3", "x")).err.split("\n")[0]).toBe("pi-governor search: unknown option --limt (did you mean --limit?)");
  });

  it("stats --json prints JSON even when there is no log yet", async () => {
    const r = await cli("stats", "--db", join(dir, "none.db"), "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ db: join(dir, "none.db"), since: null, exists: false, tools: [] });
  });

  it("schema without an argument prints the schema on stdout and writes nothing in the package", async () => {
    const before = statSync(DEFAULT_SCHEMA_PATH).mtimeMs;
    const r = await cli("schema");
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.out) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["prune", "blobs", "kota", "doctor"]));
    expect(statSync(DEFAULT_SCHEMA_PATH).mtimeMs).toBe(before);
  });

  it("schema writes a named file, and the Markdown reference with --doc", async () => {
    const out = join(dir, "s", "schema.json");
    const doc = join(dir, "s", "config.md");
    const r = await cli("schema", out, "--doc", doc);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/wrote .*schema\.json \(\d+ plugin sections\)\nwrote .*config\.md/);
    expect(JSON.parse(readFileSync(out, "utf8"))).toHaveProperty("properties.prune");
    expect(readFileSync(doc, "utf8")).toMatch(/prune/);
    expect((await cli("schema", "a.json", "b.json")).code).toBe(2);
  });

  it("replay refuses a binary file with a clear message and never echoes its bytes", async () => {
    const file = join(dir, "image.png");
    writeFileSync(file, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x1b]), Buffer.from("[31mred\x07")]));
    const r = await cli("replay", file);
    expect(r.err).toMatch(/image\.png is not a pi session file \(it contains NUL bytes\): pass a session \.jsonl file/);
    expect(r.code).toBe(1);
    for (const text of [r.out, r.err]) expect(text).not.toMatch(/[\x00\x07\x1b\x89]/);
    const latin1 = join(dir, "latin1.jsonl");
    writeFileSync(latin1, Buffer.from([0x7b, 0xe9, 0xe8, 0x7d, 0x0a]));
    expect((await cli("replay", latin1)).err).toMatch(/not UTF-8 text/);
  });

  it("doctor --json prints every check as JSON and exits 1 when one failed", async () => {
    const agentDir = join(dir, "agent");
    const previous = process.env.PI_CODING_AGENT_DIR;
    process.env.PI_CODING_AGENT_DIR = agentDir;
    try {
      writeFileSync(join(dir, "pi-governor.json"), "");
      mkdirSync(agentDir, { recursive: true });
      writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", prune: { keepRecentTurns: -1 } }));
      // A pi 9.8.7 whose `pi` is on PATH: in a shell, that is the pi the doctor reports (not pi-governor's dev dependency).
      // Outside the project (--cwd): a `pi` inside it is one the project planted, never read.
      const global = mkdtempSync(join(tmpdir(), "gov-cli-global-"));
      const globalPi = join(global, "node_modules", "@earendil-works", "pi-coding-agent");
      mkdirSync(join(globalPi, "dist"), { recursive: true });
      writeFileSync(join(globalPi, "package.json"), JSON.stringify({ name: "@earendil-works/pi-coding-agent", version: "9.8.7" }));
      writeFileSync(join(globalPi, "dist", "cli.js"), "#!/usr/bin/env node\n", { mode: 0o755 });
      mkdirSync(join(global, "bin"), { recursive: true });
      symlinkSync(join(globalPi, "dist", "cli.js"), join(global, "bin", "pi"));
      const path = process.env.PATH;
      process.env.PATH = `${join(global, "bin")}:${path}`;
      let r: Awaited<ReturnType<typeof cli>>;
      try {
        r = await cli("doctor", "--cwd", dir, "--json");
      } finally {
        process.env.PATH = path;
        rmSync(global, { recursive: true, force: true });
      }
      const { results } = JSON.parse(r.out) as { results: Array<{ name: string; status: string; detail: string }> };
      expect(results.find((x) => x.name === "pi")!.detail).toBe(`@earendil-works/pi-coding-agent 9.8.7 (${globalPi}); the \`pi\` on PATH`);
      expect(results.find((x) => x.name === "preset")!.detail).toMatch(/"lean" \(chosen by config\)/);
      // lean has no kota plugin, so nothing checks Bun or KotaDB.
      expect(results.filter((x) => x.name === "kotadb" || x.name === "bun")).toEqual([]);
      // The blob cache and the recall index follow PI_CODING_AGENT_DIR like the config file does.
      expect(results.find((x) => x.name === "blob cache")!.detail).toContain(join(agentDir, "cache", "pi-governor", "blobs"));
      expect(results.find((x) => x.name === "recall index")!.detail).toContain(join(agentDir, "cache", "pi-governor", "recall", "index.db"));
      expect(
        results
          .filter((x) => x.name === "config")
          .map((x) => x.detail)
          .join("\n"),
      ).toMatch(/prune\.keepRecentTurns/);
      expect(r.code).toBe(1);
    } finally {
      if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
      else process.env.PI_CODING_AGENT_DIR = previous;
    }
  });

  it("doctor: a KotaDB that exits at once (a registry 404) is reported as exited with its code, stderr once, and the fix for a missing package", async () => {
    const agentDir = join(dir, "agent-404");
    const saved = { agent: process.env.PI_CODING_AGENT_DIR, config: process.env.PI_GOVERNOR_CONFIG };
    process.env.PI_CODING_AGENT_DIR = agentDir;
    // Built at run time, so the stderr line is not also in the command line the report shows.
    const script = "console.error(['npm error 404 Not Found - GET https://registry.npmjs.org', 'kotadb-nope - Not found'].join('/')); process.exit(3)";
    process.env.PI_GOVERNOR_CONFIG = JSON.stringify({ kota: { command: process.execPath, args: ["-e", script] } });
    try {
      const started = Date.now();
      const r = await cli("doctor", "--cwd", dir, "--json");
      const { results } = JSON.parse(r.out) as { results: Array<{ name: string; status: string; detail: string; fix?: string }> };
      const kota = results.find((x) => x.name === "kotadb")!;
      expect(kota.status).toBe("fail");
      expect(kota.detail).toMatch(/exited with code 3/);
      expect(kota.detail).not.toMatch(/within/);
      expect(kota.detail.split("registry.npmjs.org/kotadb-nope").length - 1).toBe(1);
      expect(kota.fix).toMatch(/no such package or version/);
      expect(kota.fix).toContain(join(agentDir, "pi-governor.json"));
      expect(Date.now() - started).toBeLessThan(10_000); // not the 15 s start deadline
    } finally {
      for (const [key, value] of [
        ["PI_CODING_AGENT_DIR", saved.agent],
        ["PI_GOVERNOR_CONFIG", saved.config],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
