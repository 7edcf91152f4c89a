/**
 * vitest setupFiles: every test file runs with its own HOME and agent dir (test/helpers/hermetic-home.ts),
 * under the folder test/setup/real-home-guard.ts made for this run, before the file imports anything.
 */
import { useHermeticHome } from "../helpers/hermetic-home.ts";

useHermeticHome(process.env.PI_GOVERNOR_TEST_HOMES);
