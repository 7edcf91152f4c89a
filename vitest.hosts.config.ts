/**
 * The end-to-end tests alone, against the pi PI_GOVERNOR_PI_HOME names (see test/helpers/pi-host.ts):
 *   PI_GOVERNOR_PI_HOME=.ci/hosts/pi-0.87 vitest run --config vitest.hosts.config.ts
 * pi's package names resolve to that pi in every config (vitest.config.ts, PI_ALIASES).
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

// Spread, not mergeConfig: mergeConfig concatenates `include` and would run the whole suite.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/e2e/**/*.test.ts"],
  },
});
