import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot, packageVersion } from "../../../../lib/package/index.ts";
import { repoRoot } from "../../../helpers/pi-host.ts";

const work = mkdtempSync(join(tmpdir(), "gov-package-root-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("packageRoot and packageVersion", () => {
  it("find this package's folder and version from the sources", () => {
    expect(packageRoot()).toBe(repoRoot);
    expect(packageVersion()).toBe((JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version);
  });

  it("find the same folder from the compiled build's deeper path (dist/lib/package), past other package.json files", async () => {
    const root = join(work, "node_modules", "pi-governor");
    const built = join(root, "dist", "lib", "package");
    mkdirSync(built, { recursive: true });
    writeFileSync(join(root, "package.json"), JSON.stringify({ name: "pi-governor", version: "9.8.7" }));
    // A package.json on the way up that is not this package's (a "type" marker) is passed over.
    writeFileSync(join(root, "dist", "package.json"), JSON.stringify({ type: "module" }));
    cpSync(join(repoRoot, "lib", "package", "index.ts"), join(built, "index.ts"));
    const moved = (await import(pathToFileURL(join(built, "index.ts")).href)) as typeof import("../../../../lib/package/index.ts");
    expect(moved.packageRoot()).toBe(root);
    expect(moved.packageVersion()).toBe("9.8.7");
  });
});
