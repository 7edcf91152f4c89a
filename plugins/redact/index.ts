/**
 * `governor:redact` (config key `redact`, on by default): secrets never persist. Every governed call's
 * observation is redacted just inside the outermost observers (the execution log, telemetry), and
 * every tool result, governed or pi's own, is redacted first in `toolResult` (before the model reads
 * it). Other plugins get the session's redactor as the `redact:redactor` service: the MCP and kota
 * plugins add the env values they give a server and redact stderr tails and command lines with it;
 * the blob store, the recall index and the execution log redact every byte they write with it, and
 * telemetry what it exports (all four get the built-in rules without this plugin: lib/redact's
 * redactorForWrites). A result pi cut itself (bash, pi 1.x's MCP tools) is redacted against the whole
 * output pi saved, so no piece of a secret its cut split is left (lib/redact/cut-edges.ts). Turning
 * it off, or leaving out a built-in rule, is the user's choice (global file).
 */
import {
  definePlugin,
  defineService,
  RESULT_STAGE,
  TOOL_STAGE,
  type ContentBlock,
  type ToolObservation,
  type ToolResultValue,
  type ToolWrapper,
} from "../../core/index.ts";
import { readPiFullOutputEnds } from "../../lib/pi/index.ts";
import { CUT_WINDOW_CHARS, cutEdgeSpans, type OutputEnds, Redactor, redactValue } from "../../lib/redact/index.ts";
import { redactDefaults, redactSchema } from "./config.ts";

export { redactDefaults, redactSchema, type RedactOptions } from "./config.ts";

/** Plugin name, as taps, logs and errors show it. */
export const REDACT_PLUGIN = "governor:redact";
/** toolResult stage: before every formatter (FORMAT), so nothing after it sees a secret. */
export const REDACT_RESULT_STAGE = RESULT_STAGE.FORMAT - 90;
/** toolCall stage: just inside the execution log (OBSERVE) and telemetry (OBSERVE - 10), outside everything else. */
export const REDACT_CALL_STAGE = TOOL_STAGE.OBSERVE + 1;

/** The session's redactor, for plugins that write or show text: list it in `optional`, read it with `services.maybe(REDACTOR)`. */
export const REDACTOR = defineService<Redactor>("redact:redactor", { providedBy: `${REDACT_PLUGIN} (redact() from pi-governor/plugins/redact/index.ts)` });

/**
 * Text blocks redacted; the same array when nothing changed. With `cut` (the ends of the whole output
 * pi saved when it cut this one), every piece of a secret pi's cut left in a block is hidden too.
 */
export function redactContent(content: ContentBlock[], redactor: Pick<Redactor, "redact">, cut?: { ends: OutputEnds; finder: Redactor }): ContentBlock[] {
  let out: ContentBlock[] | undefined;
  content.forEach((block, i) => {
    if (block.type !== "text") return;
    const text = cut ? cut.finder.redactWithReport(block.text, cutEdgeSpans(block.text, cut.ends, cut.finder)).text : redactor.redact(block.text);
    if (text !== block.text) (out ??= [...content])[i] = { ...block, text };
  });
  return out ?? content;
}

/** A tool result with its text and details redacted, or undefined when nothing changed. `cut`: see {@link redactContent}. */
export function redactResult(
  value: ToolResultValue,
  redactor: Pick<Redactor, "redact">,
  cut?: { ends: OutputEnds; finder: Redactor },
): ToolResultValue | undefined {
  const content = redactContent(value.content, redactor, cut);
  const details = value.details === undefined ? undefined : redactValue(value.details, redactor);
  if (content === value.content && details === value.details) return undefined;
  return { ...value, content, ...(details === undefined ? {} : { details }) };
}

/** An observation with its text, message and details redacted (the same object when nothing changed). */
export function redactObservation(obs: ToolObservation, redactor: Pick<Redactor, "redact">): ToolObservation {
  const content = redactContent(obs.content, redactor);
  const details = redactValue(obs.details, redactor);
  const message = "message" in obs ? redactor.redact(obs.message) : undefined;
  if (content === obs.content && details === obs.details && (!("message" in obs) || message === obs.message)) return obs;
  return { ...obs, content, details, ...(message !== undefined ? { message } : {}) } as ToolObservation;
}

/** Bytes read from each end of pi's saved output: the visible text's, and a window past the cut (4 bytes a character at most). */
function endBytes(content: readonly ContentBlock[]): number {
  let bytes = 0;
  for (const b of content) if (b.type === "text") bytes += Buffer.byteLength(b.text, "utf8");
  return bytes + 4 * CUT_WINDOW_CHARS;
}

/** The redact plugin factory: `redact()` or `redact({ disabledRules: ["url-password"] })`. */
export const redact = definePlugin({
  name: REDACT_PLUGIN,
  configKey: "redact",
  description:
    "Hides secrets (cloud keys, GitHub/GitLab/Slack/npm tokens, sk- keys, JWTs, private keys, Authorization headers, *_TOKEN= assignments, the env given to servers) in every tool output, error and command line before the model, the blob cache, the recall index or telemetry see them.",
  schema: redactSchema,
  defaults: redactDefaults,
  // Hiding less is the user's choice: a cloned repository may add shapes, never remove any.
  trustedKeys: ["enabled", "patterns", "disabledRules"] as never,
  // Shapes any source adds add up: a project's list cannot remove the ones the user put there.
  additiveKeys: ["projectPatterns"],
  provides: [REDACTOR],
  apply(pipeline, config, services) {
    const valid = (shapes: typeof config.patterns) => shapes.filter((s) => s.minLength <= s.maxLength);
    // The user's shapes run with the built-in rules; added shapes (a project may add them) only after
    // every rule of the user's, over what is not hidden yet: adding a shape only hides more.
    const redactor = new Redactor({ disabledRules: config.disabledRules, shapes: valid(config.patterns), addedShapes: valid(config.projectPatterns) });
    services.provide(REDACTOR, redactor);

    const wrapper: ToolWrapper = (next) => async (call) => redactObservation(await next(call), redactor);
    pipeline.hooks.toolCall.tap({ name: REDACT_PLUGIN, stage: REDACT_CALL_STAGE }, wrapper);
    pipeline.hooks.toolResult.tap({ name: REDACT_PLUGIN, stage: REDACT_RESULT_STAGE }, (value, info) => {
      // pi cut the output itself (bash, pi 1.x's MCP tools) and saved the whole of it: its cut may
      // split a secret, so the secrets are found in the whole output around the cut (cut-edges.ts).
      if (info.tool || typeof value.details?.fullOutputPath !== "string") return redactResult(value, redactor);
      return readPiFullOutputEnds(value.details, endBytes(value.content)).then((ends) =>
        redactResult(value, redactor, ends ? { ends, finder: redactor } : undefined),
      );
    });

    pipeline.registerCommand(REDACT_PLUGIN, `${services.commandRoot} redacted`, {
      description: "How many secrets were hidden this session, by rule",
      handler: (_args, ctx) => {
        const totals = Object.entries(redactor.totals);
        const text = totals.length ? totals.map(([rule, n]) => `${rule}: ${n}`).join(", ") : "none";
        ctx.ui.notify(`pi-governor redact: secrets hidden: ${text}`, "info");
      },
    });
  },
});
