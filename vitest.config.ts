import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * In this repository `pi-governor` resolves to the sources, not dist/ (as the `pi-governor-source`
 * export condition does for tsc): only the package's own public entries, nothing else's resolution.
 */
export const SOURCE_ALIASES = [
  { find: /^pi-governor$/, replacement: `${root}core/index.ts` },
  { find: /^pi-governor\/sdk$/, replacement: `${root}core/sdk.ts` },
  { find: /^pi-governor\/host$/, replacement: `${root}core/host-api.ts` },
  { find: /^pi-governor\/((?:plugins|presets)\/[^/]+\/index\.ts)$/, replacement: `${root}$1` },
];

export default defineConfig({
  resolve: { alias: SOURCE_ALIASES },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bench/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Every test file gets its own HOME and agent dir; the run fails if the real ~/.pi data changed.
    globalSetup: ["test/setup/real-home-guard.ts"],
    setupFiles: ["test/setup/hermetic-home.ts"],
    // Integration and e2e tests spawn real child processes; two workers match the 2-core CI machine.
    maxWorkers: 2,
  },
});
