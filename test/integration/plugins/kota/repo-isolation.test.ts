/**
 * Nothing the repository ships runs in the KotaDB process: KotaDB starts outside the repository
 * (its cwd is the filesystem root) with its database in a private folder under the agent dir, so a
 * planted `bunfig.toml` (whose `preload` bun runs before any script) or `node_modules/.bin/kotadb`
 * (which `bun x kotadb` prefers) is never picked up, and the repository is not written to.
 * The bun cases run when `bun` is on PATH (or KOTADB_TEST_BUN names it); the rest always run.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kotaDataDir } from "../../../../plugins/kota/isolation.ts";
import { REAL_KOTADB, STANDIN_SERVER } from "../../../fixtures/kotadb-standin/command.ts";
import { callTool, KotaHarness, recordingUi } from "./harness.ts";

function findBun(): string | undefined {
  if (process.env.KOTADB_TEST_BUN) return process.env.KOTADB_TEST_BUN;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, "bun");
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}
const bun = findBun();
const bunWorks = (() => {
  try {
    return !!bun && /^\d/.test(execFileSync(bun, ["--version"], { encoding: "utf8", timeout: 20_000 }));
  } catch {
    return false;
  }
})();

let h: KotaHarness;
beforeEach(() => {
  h = new KotaHarness();
});
afterEach(async () => {
  await h.dispose();
});

describe("KotaDB runs outside the repository", () => {
  it("indexes without writing the repository: the database lives in a private folder under the agent dir", async () => {
    const g = await h.build({ confirmIndex: false });
    g.attachSession("s", recordingUi(true));
    const indexed = await callTool(g, "kota_index", {});
    expect(indexed.obs.status).toBe("SUCCESS");
    expect(existsSync(join(h.repo.root, ".kotadb"))).toBe(false);
    expect(existsSync(join(h.repo.root, ".gitignore"))).toBe(false);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: h.repo.root, encoding: "utf8" })).toBe("");
    const dir = kotaDataDir(join(h.work, "agent"), h.repo.root);
    expect(existsSync(join(dir, "kota.db"))).toBe(true);
    if (process.platform !== "win32") expect(statSync(dir).mode & 0o077).toBe(0);
    const deps = await callTool(g, "kota_deps", { file_path: "src/utils/math.ts" });
    expect(deps.text).toMatch(/^src\/utils\/math.ts \(both, depth 1\): 3 dependents/);
    // A new session (new KotaDB process) finds the index again.
    const g2 = await h.build({ confirmIndex: false });
    g2.attachSession("s2", recordingUi(true));
    expect((await callTool(g2, "kota_deps", { file_path: "src/utils/math.ts" })).obs.status).toBe("SUCCESS");
  });

  it("a planted .kotadb link in the repository does not redirect KotaDB's writes", async () => {
    const elsewhere = join(h.work, "elsewhere");
    mkdirSync(elsewhere);
    execFileSync("ln", ["-s", elsewhere, join(h.repo.root, ".kotadb")]);
    const g = await h.build({ confirmIndex: false });
    g.attachSession("s", recordingUi(true));
    expect((await callTool(g, "kota_index", {})).obs.status).toBe("SUCCESS");
    expect(readFileSync(join(h.repo.root, "package.json"), "utf8")).toMatch(/fixture-app/);
    expect(existsSync(join(elsewhere, "kota.json")) || existsSync(join(elsewhere, "kota.db"))).toBe(false);
  });

  describe.skipIf(!bunWorks || REAL_KOTADB)("with the real bun", () => {
    it("a bunfig.toml preload planted in the repository does not run", async () => {
      const marker = join(h.work, "preload-ran");
      writeFileSync(join(h.repo.root, "bunfig.toml"), 'preload = ["./planted.ts"]\n');
      writeFileSync(join(h.repo.root, "planted.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`);
      // bun runs the stand-in (TypeScript) directly, the way `bun x kotadb@next` runs KotaDB's cli.ts.
      const g = await h.build({ confirmIndex: false, command: bun, args: ["run", STANDIN_SERVER] });
      g.attachSession("s", recordingUi(true));
      expect((await callTool(g, "kota_index", {})).obs.status).toBe("SUCCESS");
      expect(existsSync(marker)).toBe(false);
    });

    it("a node_modules/.bin/kotadb planted in the repository does not run under bun x", async () => {
      const marker = join(h.work, "bin-ran");
      const bin = join(h.repo.root, "node_modules", ".bin", "kotadb");
      mkdirSync(join(h.repo.root, "node_modules", ".bin"), { recursive: true });
      writeFileSync(bin, `#!/bin/sh\necho ran > ${JSON.stringify(marker)}\n`);
      chmodSync(bin, 0o755);
      const g = await h.build({ command: bun, args: ["x", "kotadb", "--stdio"], connectTimeoutMs: 20_000 });
      g.attachSession("s", recordingUi(true));
      await callTool(g, "kota_status", {});
      expect(existsSync(marker)).toBe(false);
    });
  });
});
