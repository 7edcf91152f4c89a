/**
 * Which pi the end-to-end tests run against. pi ships in two npm scopes: `@mariozechner` (up to
 * 0.73) and `@earendil-works` (0.74 onwards). The default is the repository's devDependency; the env
 * var PI_GOVERNOR_PI_HOME names another folder whose `node_modules` holds either scope (CI installs
 * pi 0.87 in .ci/hosts/pi-0.87 with `npm ci`).
 *
 * Kept free of vitest and pi imports: vitest.hosts.config.ts reads it to alias the test imports.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root (where package.json is). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** npm scopes pi has been published under, newest first. */
export const PI_SCOPES = ["@earendil-works", "@mariozechner"] as const;
export type PiScope = (typeof PI_SCOPES)[number];

/** One installed pi: where its packages are and what version it is. */
export interface PiHost {
  /** Folder whose node_modules holds pi. */
  home: string;
  scope: PiScope;
  /** pi-coding-agent version, e.g. "0.87.1". */
  version: string;
  /** Package folders. */
  codingAgentDir: string;
  aiDir: string;
  /** typebox as pi resolves it (pi's extension loader hands this copy to extensions). */
  typeboxDir: string;
  /** `pi` CLI entry (run with process.execPath). */
  cliPath: string;
}

/**
 * Finds pi in `PI_GOVERNOR_PI_HOME` (absolute, or relative to the repository root) or, without it,
 * in the repository's own node_modules. Throws with the folders it looked in when none holds pi.
 */
export function findPiHost(env: NodeJS.ProcessEnv = process.env): PiHost {
  const configured = env.PI_GOVERNOR_PI_HOME?.trim();
  const home = configured ? resolve(repoRoot, configured) : repoRoot;
  for (const scope of PI_SCOPES) {
    const codingAgentDir = join(home, "node_modules", scope, "pi-coding-agent");
    const manifest = join(codingAgentDir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { version: string; bin?: Record<string, string> };
    const aiDir = [join(codingAgentDir, "node_modules", scope, "pi-ai"), join(home, "node_modules", scope, "pi-ai")].find((d) => existsSync(d));
    const typeboxDir = [join(codingAgentDir, "node_modules/typebox"), join(home, "node_modules/typebox")].find((d) => existsSync(d));
    if (!aiDir || !typeboxDir)
      throw new Error(`pi ${pkg.version} in ${codingAgentDir} has no ${aiDir ? "typebox" : `${scope}/pi-ai`} beside it; run \`npm ci\` in ${home}.`);
    return { home, scope, version: pkg.version, codingAgentDir, aiDir, typeboxDir, cliPath: join(codingAgentDir, pkg.bin?.pi ?? "dist/cli.js") };
  }
  throw new Error(
    `No pi found in ${join(home, "node_modules")} (looked for ${PI_SCOPES.map((s) => `${s}/pi-coding-agent`).join(" and ")}). ` +
      (configured ? `Check PI_GOVERNOR_PI_HOME=${configured} and run \`npm ci\` there.` : "Run `npm ci` in the repository."),
  );
}

/** The pi the tests in this process use. */
export const piHost: PiHost = findPiHost();

/** True for pi 0.74 and later (the `@earendil-works` line: ModelRuntime, pi-ai's provider objects). */
export const isEarendilPi = piHost.scope === "@earendil-works";

/**
 * True when this pi ships its own MCP client and the `codemode` tool (pi 1.x: `createMcpExtension`,
 * `createCodemodeExtension`, tools `mcp__<server>__<tool>`). Read from pi's files, not its version.
 */
export const piHasBuiltinMcp = ["mcp", "codemode"].every((name) => existsSync(join(piHost.codingAgentDir, "dist/extensions", name, "index.js")));
