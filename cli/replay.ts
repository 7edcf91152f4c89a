/**
 * `pi-governor replay` as the default preset prunes: the prune plugin with the kota preset's
 * overrides (kota_* placeholders, kota_search snippets, kota_impact pinned).
 */
import type { CliCommand } from "../core/index.ts";
import { kotaPrune } from "../presets/kota/index.ts";
import { replayCommand } from "../plugins/prune/replay/cli.ts";

/** The `replay` command with the kota preset's prune defaults. */
export const run: CliCommand = replayCommand(() => kotaPrune());
