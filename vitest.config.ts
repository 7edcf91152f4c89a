import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { piHost } from "./test/helpers/pi-host.ts";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * In this repository `pi-governor` resolves to the sources, not dist/ (as the `pi-governor-source`
 * export condition does for tsc): only the package's own public entries, nothing else's resolution.
 */
export const SOURCE_ALIASES = [
  { find: /^pi-governor$/, replacement: `${root}core/index.ts` },
  { find: /^pi-governor\/host$/, replacement: `${root}host/index.ts` },
  { find: /^pi-governor\/testing$/, replacement: `${root}testing/index.ts` },
  { find: /^pi-governor\/((?:plugins|presets)\/[^/]+\/index\.ts)$/, replacement: `${root}$1` },
];

// pi-ai 0.74+ moved the global registry API (registerApiProvider, getApiProvider, registerFauxProvider)
// to "pi-ai/compat"; its root export is the new provider-object API. Tests need both, as pi's loader gives.
const piAi = join(piHost.aiDir, piHost.scope === "@earendil-works" ? "dist/compat.js" : "dist/index.js");

/**
 * Tests import pi by package name, under either npm scope (`@earendil-works/pi-coding-agent`,
 * `@earendil-works/pi-ai`; the `@mariozechner/*` names of pi 0.73 mean the same): every such import,
 * and `typebox`, resolves to the ONE pi under test (test/helpers/pi-host.ts: the devDependency, pi
 * 1.6, or the folder PI_GOVERNOR_PI_HOME names), the way pi's own extension loader maps both scopes
 * and `typebox` to the copies it ships.
 */
export const PI_ALIASES = [
  { find: /^@(mariozechner|earendil-works)\/pi-coding-agent$/, replacement: join(piHost.codingAgentDir, "dist/index.js") },
  { find: /^@(mariozechner|earendil-works)\/pi-ai$/, replacement: piAi },
  { find: /^typebox$/, replacement: join(piHost.typeboxDir, "build/index.mjs") },
];

export default defineConfig({
  resolve: { alias: [...SOURCE_ALIASES, ...PI_ALIASES] },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bench/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Every test file gets its own HOME and agent dir; the run fails if the real ~/.pi data changed.
    globalSetup: ["test/setup/real-home-guard.ts", "test/setup/sqlite-notice.ts"],
    setupFiles: ["test/setup/hermetic-home.ts"],
    // Integration and e2e tests spawn real child processes; two workers match the 2-core CI machine.
    maxWorkers: 2,
  },
});
