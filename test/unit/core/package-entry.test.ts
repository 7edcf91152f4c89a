import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as byName from "pi-governor";
import * as hostByName from "pi-governor/host";
import * as testingByName from "pi-governor/testing";
import { kotaPreset } from "pi-governor/presets/kota/index.ts";
import { retry } from "pi-governor/plugins/retry/index.ts";
import * as hostByPath from "../../../host/index.ts";
import * as byPath from "../../../core/index.ts";
import * as testingByPath from "../../../testing/index.ts";

/** Plugin authors import the package by its name; the `exports` map in package.json makes that work. */
describe("package entry (package.json exports)", () => {
  it("resolves `pi-governor` to the plugin SDK (core/index.ts), the same module as the relative path", () => {
    expect(byName.definePlugin).toBe(byPath.definePlugin);
  });

  it("resolves `pi-governor/host` to the host entry and `pi-governor/testing` to the testing kit, neither in `pi-governor`", () => {
    expect(hostByName.createExtension).toBe(hostByPath.createExtension);
    expect(testingByName.fakePiHost).toBe(testingByPath.fakePiHost);
    expect("createGovernor" in byName).toBe(false);
    expect("fakePiHost" in byName).toBe(false);
    expect("definePlugin" in hostByName).toBe(false);
  });

  it("resolves shipped presets and plugins under pi-governor/presets/* and pi-governor/plugins/*", () => {
    expect(kotaPreset.name).toBe("kota");
    expect(retry().name).toMatch(/retry/);
  });

  it("keeps pi's extension manifest, the bin and every export's source pointing at files that exist", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      pi: { extensions: string[] };
      bin: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
    };
    // Patterns are checked with a shipped name; the dist/ targets are checked by test/integration/package/pack.test.ts.
    const sources = Object.values(pkg.exports).map((target) => (typeof target === "string" ? target : target["pi-governor-source"]!).replace("*", "kota"));
    for (const file of [...pkg.pi.extensions, ...Object.values(pkg.bin), ...sources]) {
      expect(() => readFileSync(new URL(`../../../${file}`, import.meta.url)), file).not.toThrow();
    }
  });

  it("sends plain Node and TypeScript outside this repository to the compiled build", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown> };
    expect(pkg.exports["."]).toEqual({ "pi-governor-source": "./core/index.ts", types: "./dist/core/index.d.ts", default: "./dist/core/index.js" });
    expect(pkg.exports["./sdk"]).toBeUndefined();
    expect(pkg.exports["./host"]).toEqual({
      "pi-governor-source": "./host/index.ts",
      types: "./dist/host/index.d.ts",
      default: "./dist/host/index.js",
    });
    expect(pkg.exports["./testing"]).toEqual({
      "pi-governor-source": "./testing/index.ts",
      types: "./dist/testing/index.d.ts",
      default: "./dist/testing/index.js",
    });
  });
});

describe("pi's extension list", () => {
  it("names the extension pi-governor, by pi's own labelling, not extension.ts", async () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { pi: { extensions: string[] } };
    const entry = fileURLToPath(new URL(`../../../${pkg.pi.extensions[0]}`, import.meta.url));
    // pi 1.x's interactive mode labels each loaded extension (its startup "Extensions" list).
    const mode = (await import("@earendil-works/pi-coding-agent")) as unknown as { InteractiveMode?: { prototype: object } };
    if (!mode.InteractiveMode) return; // pi 0.73 lists extensions by their full path
    const labels = (Object.create(mode.InteractiveMode.prototype) as { getCompactExtensionLabels(e: unknown[]): string[] }).getCompactExtensionLabels([
      // `pi -e <clone>` / settings.json path (clone folder "pi-governor"), and `pi install npm:pi-governor`.
      {
        path: entry.replace(fileURLToPath(new URL("../../../", import.meta.url)), "/home/u/pi-governor/"),
        sourceInfo: { source: "local", scope: "temporary" },
      },
    ]);
    expect(labels).toEqual(["pi-governor"]);
    const npm = (Object.create(mode.InteractiveMode.prototype) as { getCompactExtensionLabels(e: unknown[]): string[] }).getCompactExtensionLabels([
      {
        path: entry.replace(fileURLToPath(new URL("../../../", import.meta.url)), "/home/u/.pi/agent/npm/node_modules/pi-governor/"),
        sourceInfo: { source: "npm:pi-governor", scope: "user", baseDir: "/home/u/.pi/agent/npm/node_modules/pi-governor" },
      },
    ]);
    expect(npm).toEqual(["pi-governor"]);
  });
});
