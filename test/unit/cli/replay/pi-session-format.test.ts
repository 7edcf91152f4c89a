import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SAMPLE_SESSION } from "../../../../cli/replay/command.ts";
import { loadPiSessionFormat } from "../../../../cli/replay/pi-session-format.ts";
import { parseSession } from "../../../../cli/replay/session-file.ts";

describe("older session versions replay through pi's own migration", () => {
  /** The sample as a version 1 session: no ids, no parent links. */
  const v1 = () =>
    readFileSync(SAMPLE_SESSION, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.type === "session") return JSON.stringify({ ...e, version: 1 });
        delete e.id;
        delete e.parentId;
        return JSON.stringify(e);
      })
      .join("\n");

  it("with pi installed every entry is read; without it each line is 'entry without an id'", async () => {
    const format = await loadPiSessionFormat();
    expect(format?.pi.scope).toMatch(/^@(mariozechner|earendil-works)$/);
    const withPi = parseSession(v1(), "v1.jsonl", format!.migrate);
    const assistantReplies = v1()
      .split("\n")
      .filter((l) => l.includes('"role":"assistant"')).length;
    expect(withPi.problems).toEqual([]);
    // Version 1 has no branches: pi's migration links each entry to the one before it.
    expect(withPi.requests.length).toBe(assistantReplies);
    const without = parseSession(v1(), "v1.jsonl");
    expect(without.requests).toHaveLength(0);
    expect(without.problems[0]).toMatch(/entry without an id .*install pi/);
  });
});

describe("which pi's session reader is loaded", () => {
  const work = mkdtempSync(join(tmpdir(), "pi-session-format-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const marker = join(work, "ran");

  /** A pi package whose session reader leaves a marker when imported; returns its folder. */
  const plantPi = (dir: string, version: string) => {
    mkdirSync(join(dir, "dist", "core"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "@mariozechner/pi-coding-agent", version, type: "module" }));
    writeFileSync(join(dir, "dist", "cli.js"), "");
    writeFileSync(
      join(dir, "dist", "core", "session-manager.js"),
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "${version}");\nexport function migrateSessionEntries() {}\n`,
    );
    return dir;
  };

  it("never one in the current directory's node_modules, nor through a relative PATH entry", async () => {
    const repo = join(work, "repo");
    const pi = plantPi(join(repo, "node_modules", "@mariozechner", "pi-coding-agent"), "6.6.6");
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(repo, "node_modules", ".bin", "pi"), "");
    const installedHere = join(work, "tools", "node_modules", "pi-governor");
    mkdirSync(installedHere, { recursive: true });
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      expect(await loadPiSessionFormat("node_modules/.bin:.", installedHere)).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
      // Installed beside this package (a global or a tools folder), it is the user's pi.
      plantPi(join(work, "tools", "node_modules", "@mariozechner", "pi-coding-agent"), "7.7.7");
      expect((await loadPiSessionFormat("", installedHere))?.pi.version).toBe("7.7.7");
      expect(readFileSync(marker, "utf8")).toBe("7.7.7");
      expect(pi).toContain("repo");
      // A package installed inside the repository (`pi install -l`: <repo>/.pi/git/...) never reaches
      // the repository's own node_modules by walking up.
      rmSync(marker, { force: true });
      const projectLocal = join(repo, ".pi", "git", "github.com", "someone", "pi-governor");
      mkdirSync(projectLocal, { recursive: true });
      expect(await loadPiSessionFormat("", projectLocal)).toBeUndefined();
      expect(existsSync(marker)).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});
