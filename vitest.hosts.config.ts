/**
 * The end-to-end tests against another pi line (see test/helpers/pi-host.ts):
 *   PI_GOVERNOR_PI_HOME=.ci/hosts/pi-0.87 vitest run --config vitest.hosts.config.ts
 * Tests import pi as `@mariozechner/*` (the devDependency's names, for the type check); here those
 * names resolve to the pi in PI_GOVERNOR_PI_HOME, the way pi's own extension loader maps both scopes
 * and `typebox` to the copies it ships.
 */
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import base, { SOURCE_ALIASES } from "./vitest.config.ts";
import { piHost } from "./test/helpers/pi-host.ts";

const earendil = piHost.scope === "@earendil-works";
// pi-ai 0.74+ moved the global registry API (registerApiProvider, getApiProvider, registerFauxProvider)
// to "pi-ai/compat"; its root export is the new provider-object API. Tests need both, as pi's loader gives.
const piAi = join(piHost.aiDir, earendil ? "dist/compat.js" : "dist/index.js");

// Spread, not mergeConfig: mergeConfig concatenates `include` and would run the whole suite.
export default defineConfig({
  ...base,
  resolve: {
    alias: [
      ...SOURCE_ALIASES,
      { find: /^@(mariozechner|earendil-works)\/pi-coding-agent$/, replacement: join(piHost.codingAgentDir, "dist/index.js") },
      { find: /^@(mariozechner|earendil-works)\/pi-ai$/, replacement: piAi },
      { find: /^typebox$/, replacement: join(piHost.typeboxDir, "build/index.mjs") },
    ],
  },
  test: {
    ...base.test,
    include: ["test/e2e/**/*.test.ts"],
  },
});
