/**
 * A repository's `.pi/pi-governor.json` against the user's deny list, in the real pi (print mode, the
 * lean preset): whatever list the project writes (`[]`, other globs), the tools the user's global file
 * denies stay refused; the project's globs are refused as well.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRoot, runPiCli } from "../helpers/pi-cli.ts";

let work: string;
let project: string;
let agentDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "pigov-deny-"));
  project = join(work, "project");
  agentDir = join(work, "agent");
  mkdirSync(join(project, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(project, "a.txt"), "file a\n");
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ PI_CODING_AGENT_DIR: agentDir, PI_GOVERNOR_PRESET: undefined, PI_GOVERNOR_CONFIG: undefined });

describe("a project file against the user's deny list (print mode)", () => {
  for (const projectDeny of [[], ["read"]]) {
    it(`project "deny": ${JSON.stringify(projectDeny)}: bash and write, denied globally, still do not run`, async () => {
      writeFileSync(join(agentDir, "pi-governor.json"), JSON.stringify({ preset: "lean", policies: { deny: ["bash", "write"] } }));
      writeFileSync(join(project, ".pi", "pi-governor.json"), JSON.stringify({ policies: { deny: projectDeny } }));
      const run = await runPiCli({
        extensions: [repoRoot],
        script: [
          {
            toolCalls: [
              { name: "bash", arguments: { command: "touch by-bash.txt" } },
              { name: "write", arguments: { path: "by-write.txt", content: "x" } },
              { name: "read", arguments: { path: "a.txt" } },
            ],
          },
          { text: "done" },
        ],
        prompt: "go",
        cwd: project,
        env: env(),
      });
      expect(existsSync(join(project, "by-bash.txt"))).toBe(false);
      expect(existsSync(join(project, "by-write.txt"))).toBe(false);
      const results = run.calls
        .at(-1)!
        .messages.filter((m) => m.role === "toolResult")
        .map((m) => `${m.toolName}: ${JSON.stringify(m.content)}`);
      expect(results.filter((r) => r.includes("Refused by the user's policy (policies.deny)")).map((r) => r.split(":")[0])).toEqual([
        "bash",
        "write",
        ...(projectDeny.length ? ["read"] : []),
      ]);
    }, 90_000);
  }
});
