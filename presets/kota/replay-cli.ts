/**
 * `pi-governor replay` as the default preset prunes: the prune plugin with the kota preset's
 * overrides (kota_* placeholders, kota_search snippets, kota_impact pinned).
 */
import type { CliCommand } from "../../cli/main.ts";
import { replayCommand } from "../../plugins/prune/replay/cli.ts";
import { kotaPrune } from "./prune-policy.ts";

/** The `replay` command with the kota preset's prune defaults. */
export const run: CliCommand = replayCommand(() => kotaPrune());
