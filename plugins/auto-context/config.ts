/**
 * The `autoContext` config section. The on/off switch is
 * `kota.autoContext: "off" | "onPaths" | "always"`; `autoContext.mode` overrides it when set to
 * anything but "inherit". The other keys tune the briefing.
 */
import { z } from "zod";

/** Schema of the `autoContext` section (without `enabled`). */
export const autoContextSchema = z.object({
  mode: z
    .enum(["inherit", "off", "onPaths", "always"])
    .describe(
      '"inherit" follows kota.autoContext; otherwise overrides it. "onPaths": brief when the prompt names 1-3 existing files; "always": also add a one-line index note once per session and HEAD when it names none. Default "inherit".',
    ),
  maxPaths: z.number().int().min(1).max(10).describe("More mentioned files than this: no briefing; the user is told to use kota_task_context. Default 3."),
  maxBytes: z.number().int().min(200).max(8_000).describe("Size cap of one briefing, in UTF-8 bytes. Default 1500."),
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60_000)
    .describe("Longest the KotaDB queries for one briefing may take, in milliseconds; past it the prompt goes on without a briefing. Default 4000."),
  askToIndex: z.boolean().describe("When the repository is not indexed, ask to index (kota.confirmIndex and kota.indexWithoutUi apply). Default true."),
  indexWaitMs: z
    .number()
    .int()
    .min(0)
    .max(600_000)
    .describe(
      "How long a prompt waits for an index run it triggered, in milliseconds (confirmation included); indexing continues in the background after. Default 20000.",
    ),
  cacheEntries: z.number().int().min(0).max(1_000).describe("Briefings cached per path set and git HEAD. Default 32."),
});

/** The `autoContext` options (without `enabled`). */
export type AutoContextOptions = z.infer<typeof autoContextSchema>;

/** Defaults of the `autoContext` section. */
export const autoContextDefaults: AutoContextOptions = {
  mode: "inherit",
  maxPaths: 3,
  maxBytes: 1_500,
  timeoutMs: 4_000,
  askToIndex: true,
  indexWaitMs: 20_000,
  cacheEntries: 32,
};
