import { describe, expect, it } from "vitest";
import { bashChangedPaths, MAX_COMMAND_CHARS, parseCommand } from "../../../../plugins/prune/bash-paths.ts";

const changes = (command: string) => bashChangedPaths(command);
const names = (command: string, path: string) => changes(command).includes(path);

describe("bash commands: read-only or not", () => {
  it("treats the listed readers as read-only, after NAME=value assignments and from any folder", () => {
    for (const c of [
      "cat src/a.ts",
      "head -n 5 src/a.ts",
      "tail -f src/a.ts",
      "wc -l src/a.ts",
      "grep -rn foo src/a.ts",
      "rg -i foo src/a.ts",
      "ls -la src/a.ts",
      "stat src/a.ts",
      "file src/a.ts",
      "diff src/a.ts b",
      "nl src/a.ts",
      "sort src/a.ts",
      "uniq src/a.ts",
      "less src/a.ts",
      "more src/a.ts",
      "LC_ALL=C FOO='x y' grep x src/a.ts",
      "/usr/bin/cat src/a.ts",
    ]) {
      expect(changes(c), c).toEqual([]);
    }
  });

  it("treats git diff/log/show/blame/status as read-only, with git's global options", () => {
    for (const c of [
      "git diff src/a.ts",
      "git log -p -- src/a.ts",
      "git show HEAD:src/a.ts",
      "git blame src/a.ts",
      "git status src/a.ts",
      "git -C /p --no-pager diff src/a.ts",
      "git -c core.pager=cat log src/a.ts",
    ]) {
      expect(changes(c), c).toEqual([]);
    }
    for (const c of ["git checkout src/a.ts", "git restore src/a.ts", "git diff --output=src/a.ts", "git -C src/a.ts", "git stash -- src/a.ts"])
      expect(names(c, "src/a.ts"), c).toBe(true);
  });

  it("treats output redirection to a file and write flags as writing", () => {
    for (const c of [
      "cat b > src/a.ts",
      "cat b >> src/a.ts",
      "grep x b &> src/a.ts",
      "echo hi >src/a.ts",
      "cat b >| src/a.ts",
      "sort -o src/a.ts src/a.ts",
      "sort -uo src/a.ts b",
      "uniq b src/a.ts",
      "rg --fix src/a.ts",
      "cat b >& src/a.ts",
      "cat 1<>src/a.ts",
    ]) {
      expect(names(c, "src/a.ts"), c).toBe(true);
    }
  });

  it("does not count descriptor duplication, /dev/null, input redirection, ignore-case -i or uniq's option values", () => {
    for (const c of [
      "grep x src/a.ts 2>&1",
      "grep x src/a.ts 2>/dev/null",
      "cat src/a.ts >/dev/null",
      "wc -l < src/a.ts",
      "grep -i x src/a.ts >&2",
      "diff -i src/a.ts b",
      "uniq -f 1 src/a.ts",
      "cat <<< src/a.ts",
    ]) {
      expect(changes(c), c).toEqual([]);
    }
  });

  it("judges each simple command of a list or pipeline on its own", () => {
    expect(changes("cat src/a.ts | tee src/b.ts")).toEqual(["tee", "src/b.ts"]);
    expect(names("cd /p && cat src/a.ts; rm src/c.ts || true", "src/a.ts")).toBe(false);
    expect(names("cd /p && cat src/a.ts; rm src/c.ts || true", "src/c.ts")).toBe(true);
    expect(names("(cat src/a.ts) & rm src/c.ts", "src/a.ts")).toBe(false);
    expect(names("cat src/a.ts\nrm src/c.ts", "src/c.ts")).toBe(true);
  });

  it("judges a command with a substitution as a whole", () => {
    for (const c of ["cat $(rm x) src/a.ts", "cat `touch y` src/a.ts", 'cat "$(date)" src/a.ts', "diff <(sort b) src/a.ts", "cat src/a.ts > >(tee c)"]) {
      expect(names(c, "src/a.ts"), c).toBe(true);
    }
  });

  it("reads quotes and escapes: a quoted > is text, a quoted path with spaces is one word", () => {
    expect(changes("grep 'a > b' src/a.ts")).toEqual([]);
    expect(changes('grep "a > b" src/a.ts')).toEqual([]);
    expect(changes("grep a\\>b src/a.ts")).toEqual([]);
    expect(names('rm "my file.ts"', "my file.ts")).toBe(true);
    expect(names("rm my\\ file.ts", "my file.ts")).toBe(true);
    expect(names("rm 'unterminated src/a.ts", "unterminated src/a.ts")).toBe(true);
  });

  it("skips comments and here-document bodies, but sees the redirection of a here-document writer", () => {
    expect(changes("cat src/a.ts # > src/a.ts")).toEqual([]);
    const heredoc = "cat > src/new.ts <<'EOF'\nrm src/a.ts > src/b.ts\nEOF\ncat src/c.ts";
    expect(names(heredoc, "src/new.ts")).toBe(true);
    expect(names(heredoc, "src/a.ts")).toBe(false);
    expect(names(heredoc, "src/b.ts")).toBe(false);
    expect(names(heredoc, "src/c.ts")).toBe(false);
    const tabs = "cat <<-END > out.txt\n\tsrc/a.ts\n\tEND\nrm src/d.ts";
    expect(names(tabs, "out.txt")).toBe(true);
    expect(names(tabs, "src/a.ts")).toBe(false);
    expect(names(tabs, "src/d.ts")).toBe(true);
  });
});

describe("bash commands: path tokens", () => {
  it("bounds a path by non-path characters", () => {
    const tokens = changes("prettier --write=src/a.ts,src/b.ts 'src/c.ts:10'");
    expect(tokens).toContain("src/a.ts");
    expect(tokens).toContain("src/b.ts");
    expect(tokens).toContain("src/c.ts");
    expect(tokens).not.toContain("src/a");
    expect(changes("rm src/a.tsx")).not.toContain("src/a.ts");
  });

  it("reads at most MAX_COMMAND_CHARS of a crafted 1 MB command, in one pass", () => {
    const nasty = `rm ${"\"'\\$(`>".repeat(40_000)}${"a/".repeat(400_000)}`;
    expect(nasty.length).toBeGreaterThan(1_000_000);
    const parsed = parseCommand(nasty);
    expect(parsed.commands.length).toBeGreaterThan(0);
    expect(Array.isArray(bashChangedPaths(nasty))).toBe(true);
    const long = `rm ${"x/".repeat(600_000)}src/a.ts`;
    expect(names(long, "src/a.ts")).toBe(false); // beyond the limit: not read
    expect(names(`rm src/a.ts ${"y ".repeat(600_000)}`, "src/a.ts")).toBe(true);
    expect(MAX_COMMAND_CHARS).toBeLessThan(long.length);
  });
});
