import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/** In this repository `pi-governor` resolves to the sources (package.json exports), not dist/. */
export const SOURCE_CONDITIONS = ["pi-governor-source", ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
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
