/**
 * The `redact` config section: schema and defaults in one place.
 *
 * ```json
 * { "redact": { "patterns": [{ "name": "acme-token", "prefix": "acme_", "chars": "A-Za-z0-9", "minLength": 32, "maxLength": 64 }] } }
 * ```
 */
import { z } from "zod";
import { BUILTIN_RULE_NAMES, MAX_SHAPE_LENGTH, parseCharSet, RULE_NAME_PATTERN } from "../../lib/redact/index.ts";

/** Most token shapes per key: each is one more alternative in the expression every result goes through. */
export const MAX_SHAPES = 64;

const shapeSchema = z
  .object({
    name: z
      .string()
      .max(40)
      .regex(RULE_NAME_PATTERN, "lower case letters, digits and -, starting with a letter (max 40)")
      .describe("Rule name, shown as [redacted:<name>]."),
    prefix: z
      .string()
      .min(2)
      .max(40)
      .regex(/^[^\s\u0000-\u001f\u007f]+$/, "no spaces or control characters")
      .describe("Literal text every such token starts with, e.g. acme_live_."),
    chars: z
      .string()
      .min(1)
      .max(80)
      .refine((c) => {
        try {
          parseCharSet(c);
          return true;
        } catch {
          return false;
        }
      }, "letters, digits, ranges (a-z, A-Z, 0-9) and _ - . + / = ~")
      .describe("Characters after the prefix, as in a class: A-Za-z0-9_- (a - last is literal)."),
    minLength: z.number().int().min(1).max(MAX_SHAPE_LENGTH).describe("Fewest characters after the prefix."),
    maxLength: z.number().int().min(1).max(MAX_SHAPE_LENGTH).describe(`Most characters after the prefix (at most ${MAX_SHAPE_LENGTH}).`),
  })
  .strict()
  .refine((s) => s.minLength <= s.maxLength, "minLength must not exceed maxLength");

/** The schema of the `redact` section (without `enabled`, which definePlugin adds). */
export const redactSchema = z.object({
  patterns: z
    .array(shapeSchema)
    .max(MAX_SHAPES)
    .describe(
      "Your own token shapes, hidden like the built-in ones: a literal prefix and a bounded run of characters (no regular expressions: every shape runs in linear time). Only the global file and PI_GOVERNOR_CONFIG set this list; a project adds with projectPatterns. Default [].",
    ),
  projectPatterns: z
    .array(shapeSchema)
    .max(MAX_SHAPES)
    .describe("Token shapes a project adds (any config file may: adding a shape only hides more). Default []."),
  disabledRules: z
    .array(z.enum(BUILTIN_RULE_NAMES as [string, ...string[]]))
    .max(BUILTIN_RULE_NAMES.length)
    .describe("Built-in rules to leave out, by name, when one hides text that is not a secret in your work. Default []."),
});

/** The `redact` options (without `enabled`). */
export type RedactOptions = z.infer<typeof redactSchema>;

/** Defaults for the `redact` section. */
export const redactDefaults: RedactOptions = { patterns: [], projectPatterns: [], disabledRules: [] };
