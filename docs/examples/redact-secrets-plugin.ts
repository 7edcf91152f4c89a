/**
 * Example third-party plugin (docs/plugins.md walks through it): hides secrets from the model and
 * blocks tools a team does not want the agent to use. Written only against pi-governor's public API.
 */
import { z } from "zod";
import { definePlugin, failure, InvalidInputError, RESULT_STAGE, TOOL_STAGE, type ContentBlock } from "pi-governor";

const schema = z.object({
  /** Regular expression sources; every match is replaced by `[redacted]`. */
  patterns: z.array(z.string()).describe("Regular expressions whose matches are hidden from the model"),
  /** Governed tools that are refused before they run. */
  denyTools: z.array(z.string()).describe("Governed tools the agent may not call"),
});

/** `acme:redact-secrets`: config key `redactSecrets`. */
export const redactSecrets = definePlugin({
  name: "acme:redact-secrets",
  configKey: "redactSecrets",
  description: "Hides secrets in tool output and refuses denied tools",
  schema,
  defaults: {
    patterns: ["AKIA[0-9A-Z]{16}", "-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----"],
    denyTools: [],
  },
  apply(pipeline, config, services) {
    // Compile once here, not per call: apply runs once, before seal.
    const secret = new RegExp(config.patterns.map((p) => `(?:${p})`).join("|"), "g");
    const deny = new Set(config.denyTools);
    let redactions = 0;

    // Wrap: a lower stage is outer. BREAKER-10 refuses before the breaker or any retry spends effort.
    pipeline.hooks.toolCall.tap({ name: "acme:redact-secrets", stage: TOOL_STAGE.BREAKER - 10 }, (next, tool) => {
      if (!deny.has(tool.name)) return next; // not in this tool's chain at all: zero per-call cost
      return async () =>
        failure(tool.name, new InvalidInputError(`${tool.name} is disabled by team policy`, { agentMessage: "Use another tool; do not call this one again." }));
    });

    // Transform: every finished tool result, governed or pi's own (read, bash, ...).
    pipeline.hooks.toolResult.tap({ name: "acme:redact-secrets", stage: RESULT_STAGE.FORMAT }, (result) => {
      let changed = false;
      const content = result.content.map((block): ContentBlock => {
        if (block.type !== "text") return block;
        const text = block.text.replace(secret, () => {
          changed = true;
          redactions++;
          return "[redacted]";
        });
        return text === block.text ? block : { type: "text", text };
      });
      return changed ? { ...result, content } : undefined; // undefined keeps the value as it was
    });

    pipeline.registerCommand("acme:redact-secrets", `${services.commandRoot} redactions`, {
      description: "How many secrets were hidden from the model this session",
      handler: (_args, ctx) => ctx.ui.notify(`acme:redact-secrets hid ${redactions} secret(s)`, "info"),
    });
  },
});
