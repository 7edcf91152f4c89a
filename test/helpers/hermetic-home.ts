/**
 * A throwaway home for tests, the bench and the soak: HOME, pi's agent dir and the XDG folders point
 * into a fresh temp folder, so nothing the code under test writes by default (the execution log,
 * the blob cache, the recall index, pi's sessions) lands in the user's real ~/.pi. Paths are computed
 * when a function asks (os.homedir() reads HOME on every call on Linux and macOS), so setting the
 * environment before the first call is enough.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

/** The variables a hermetic home sets; anything that derives a user folder reads one of them. */
export const HOME_VARIABLES = ["HOME", "USERPROFILE", "PI_CODING_AGENT_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"] as const;

/**
 * What a temp home must not take from npm: its cache (installs in tests find packages offline) and
 * the user's npm config (registry, proxy) stay the real ones.
 */
function keepNpm(env: NodeJS.ProcessEnv): void {
  env.npm_config_cache ||= join(homedir(), ".npm");
  env.npm_config_userconfig ||= join(homedir(), ".npmrc");
}

/**
 * Points `env` (default: this process's) at a new folder under `parent` (default: the OS temp dir)
 * and returns it. The agent dir is `<home>/.pi/agent`, as pi computes it without
 * PI_CODING_AGENT_DIR.
 */
export function useHermeticHome(parent: string = tmpdir(), env: NodeJS.ProcessEnv = process.env): string {
  keepNpm(env);
  mkdirSync(parent, { recursive: true });
  const home = mkdtempSync(join(parent, "pi-governor-home-"));
  const agentDir = join(home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  env.HOME = home;
  env.USERPROFILE = home;
  env.PI_CODING_AGENT_DIR = agentDir;
  env.XDG_CONFIG_HOME = join(home, ".config");
  env.XDG_CACHE_HOME = join(home, ".cache");
  env.XDG_DATA_HOME = join(home, ".local", "share");
  env.XDG_STATE_HOME = join(home, ".local", "state");
  return home;
}

/** For a script (bench, soak): a hermetic home for the whole process, removed when it exits. */
export function useHermeticHomeUntilExit(): string {
  const home = useHermeticHome();
  process.on("exit", () => rmSync(home, { recursive: true, force: true }));
  return home;
}
