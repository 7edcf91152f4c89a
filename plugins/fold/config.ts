/**
 * The `fold` config section: schema and defaults in one place. The rules folding shares with pruning
 * (protected paths, turns kept, the default window) are prune's keys, handed over through the folding
 * service when both plugins run.
 */
import { z } from "zod";

/** The schema of the `fold` section (without `enabled`, which definePlugin adds). */
export const foldSchema = z.object({
  nudgePercent: z
    .number()
    .min(1)
    .max(1000)
    .describe("Nudge the model to fold finished work when the context before pruning reaches this percent of the window. Default 20."),
});

/** The `fold` options (without `enabled`). */
export type FoldOptions = z.infer<typeof foldSchema>;

/** Defaults for the `fold` section. */
export const foldDefaults: FoldOptions = { nudgePercent: 20 };
