/**
 * A server runs in pi's working directory by default, which a repository controls. Its command is
 * looked up on PATH relative to that directory for PATH's relative entries (`node_modules/.bin`,
 * `.`), so such an entry would run a program the repository planted under the command's name. Only
 * PATH's absolute entries are searched, and the server gets no relative entry either.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStdioConnection } from "../../../../lib/mcp/stdio-connection.ts";

const work = mkdtempSync(join(tmpdir(), "mcp-search-path-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a server's command on PATH", () => {
  it("is never found through a relative PATH entry in the repository it runs in", async () => {
    const repo = join(work, "repo");
    const marker = join(work, "ran");
    mkdirSync(join(repo, "node_modules", ".bin"), { recursive: true });
    const planted = join(repo, "node_modules", ".bin", "acme-mcp");
    writeFileSync(planted, `#!/bin/sh\ntouch ${marker}\nexit 1\n`);
    chmodSync(planted, 0o755);
    const start = openStdioConnection({
      name: "acme",
      command: "acme-mcp",
      args: [],
      cwd: repo,
      env: { PATH: `node_modules/.bin:.:${dirname(process.execPath)}:/usr/bin:/bin` },
      restartCommand: "/governor restart acme",
      connectTimeoutMs: 5_000,
      maxAnswerBytes: 1024 * 1024,
    });
    const error = (await start.then(
      (c) => c.close(1_000).then(() => undefined),
      (e: Error) => e,
    )) as Error | undefined;
    expect(existsSync(marker)).toBe(false);
    expect(error?.message).toMatch(/command not found: acme-mcp/);
  });
});
