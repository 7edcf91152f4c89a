/**
 * vitest globalSetup: makes one folder for this run's throwaway homes (test/setup/hermetic-home.ts
 * gives each test file its own), and fails the run when anything pi-governor keeps in the real
 * user's pi folders changed while the tests ran, listing the paths (exit code 1). The main process points at a
 * throwaway home too, so workers (which inherit its environment) never see the real one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { useHermeticHome } from "../helpers/hermetic-home.ts";
import { changedPiData, piDataRoots, snapshotPiData } from "./pi-data-snapshot.ts";

export default function setup(): () => void {
  const realHome = homedir();
  const realAgentDir = process.env.PI_CODING_AGENT_DIR || undefined;
  const roots = piDataRoots(realHome, realAgentDir);
  const before = snapshotPiData(roots);
  const homes = mkdtempSync(join(tmpdir(), "pi-governor-test-homes-"));
  process.env.PI_GOVERNOR_TEST_HOMES = homes;
  useHermeticHome(homes);
  return () => {
    rmSync(homes, { recursive: true, force: true });
    // Roots listed again: a pi-governor* entry the tests created in the agent dir is a change too.
    const changes = changedPiData(before, snapshotPiData([...new Set([...roots, ...piDataRoots(realHome, realAgentDir)])]));
    if (changes.length === 0) return;
    // vitest reports a teardown error but keeps the exit code of the tests: set it.
    process.exitCode = 1;
    throw new Error(
      `the tests changed the real pi data under ${realHome} (tests must write only under their own HOME and ` +
        `PI_CODING_AGENT_DIR; a pi session of yours running at the same time would explain it too):\n  ${changes.slice(0, 50).join("\n  ")}` +
        (changes.length > 50 ? `\n  ... and ${changes.length - 50} more` : ""),
    );
  };
}
