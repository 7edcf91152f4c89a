/**
 * The policies plugin (`governor:policies`): stops a runaway agent. Before every call pi runs (its
 * built-ins, its own MCP tools, codemode's nested calls, pi-governor's tools) it applies, in order:
 * `deny` globs, the first matching allow / deny / ask rule, then the call limits per turn and per
 * run. A refused call gets a result that says which config line refused it; a limit with
 * `onExceed: "stop"` ends the run. `ask` uses pi's dialogs (interactive and RPC mode) and shows the
 * whole call, or runs it only after the user opened the whole of it (ask-dialog.ts); where no one can
 * answer (print mode) the call is refused with the line that would allow it.
 * Optionally, a read-only governed tool repeated within the user's turn (the run one prompt starts) is
 * answered from the first result.
 */
import { join } from "node:path";
import { definePlugin, GATE_STAGE, TOOL_STAGE, type ToolGateDecision, type ToolGateInfo } from "../../core/index.ts";
import { CONFIG_FILE } from "../../lib/config/index.ts";
import { describeRule, effectiveHints } from "./access.ts";
import { askUser, refusal } from "./ask-dialog.ts";
import { policiesDefaults, policiesSchema, type PoliciesOptions } from "./config.ts";
import { ChangeWatch } from "./change-watch.ts";
import { allowGlobFor, CallIdentities, decideSubjects, globNames, serverNamed, type SubjectDecision } from "./identity.ts";
import { piMcpServers, runningServers } from "./pi-mcp-servers.ts";
import { CallLimits } from "./limits.ts";
import { lingers, repeatedCallWrapper, TurnResults } from "./repeated-calls.ts";
import { policyStatusLines } from "./status.ts";
import { unmatchedGlobs } from "./unmatched.ts";

export { policiesDefaults, policiesSchema, type AccessRule, type CallLimit, type PoliciesOptions } from "./config.ts";
export { toolGlobMatches } from "./tool-glob.ts";

const NAME = "governor:policies";

/** One session's counters, this run's remembered results and the changes running under them. */
interface SessionPolicyState {
  limits: CallLimits;
  results: TurnResults;
  watch: ChangeWatch;
}

/** The policies plugin factory: `policies()` or `policies({ limits: [...], rules: [...] })`. */
export const policies = definePlugin({
  name: NAME,
  configKey: "policies",
  description: "Call limits per turn and per run, and allow / deny / ask rules by tool and behaviour hints, for every call pi runs.",
  schema: policiesSchema,
  defaults: policiesDefaults,
  trustedKeys: ["limits", "rules", "repeatedCalls", "enabled" as never],
  // Every source's deny globs add up: a project file can deny more, never take back the user's.
  additiveKeys: ["deny"],
  apply(pipeline, config, services) {
    const sessions = new Map<string, SessionPolicyState>();
    const stateOf = (sessionId: string): SessionPolicyState => {
      let state = sessions.get(sessionId);
      if (!state) {
        state = { limits: new CallLimits(config.limits), results: new TurnResults(config.repeatedCalls), watch: new ChangeWatch() };
        sessions.set(sessionId, state);
      }
      return state;
    };
    const globalFile = join(services.agentDir, CONFIG_FILE);
    // One identity for an MCP server's tool on either side (pi's mcp__s__t, a managed s_t, pi's resource tools).
    const piServers = runningServers(piMcpServers(services.agentDir, services.cwd));
    const governedTools = () => [...pipeline.tools.values()].map((t) => t.info);
    // A listing of every server reads pi's mcp.json files again: a server added since load counts.
    const configuredNow = () => {
      const now = piMcpServers(services.agentDir, services.cwd);
      return now.truncated ? undefined : runningServers(now);
    };
    const identities = new CallIdentities(config, governedTools, configuredNow);
    const unmatched = () => unmatchedGlobs(config, governedTools(), piServers, identities);
    pipeline.registerLoadCheck(NAME, unmatched);
    pipeline.registerStatusSection(NAME, "Policies", () => policyStatusLines(config, unmatched()));

    pipeline.hooks.runStart.tap({ name: NAME }, ({ sessionId }) => {
      const s = stateOf(sessionId);
      s.limits.startRun();
      s.results.forget();
      s.watch.startRun();
    });
    pipeline.hooks.turnStart.tap({ name: NAME }, ({ sessionId }) => stateOf(sessionId).limits.startTurn());
    pipeline.hooks.sessionShutdown.tap({ name: NAME }, ({ sessionId }) => void sessions.delete(sessionId));

    pipeline.hooks.toolGate.tap({ name: NAME, stage: GATE_STAGE.POLICY }, async (decision, call) => {
      if (decision.blockReason) return decision;
      const state = stateOf(call.sessionId);
      // A stopped run refuses every later call as stopped, before any rule: no dialog is shown, and
      // a call a rule denies still ends the run.
      const { stop } = state.limits;
      if (stop) return { blockReason: stop.reason, terminate: true };
      const names = identities.subjects(call);
      if (typeof names === "string") return { blockReason: names };
      const judged = await judge(call, config, globalFile, decideSubjects(config, names, call));
      if (judged?.blockReason) return judged;
      const breach = state.limits.admit(call.toolName, (glob) => names.some((s) => globNames(glob, s)));
      if (breach) return { blockReason: breach.reason, ...(breach.stop ? { terminate: true } : {}) };
      // A call that may change files makes every remembered answer of this run stale, now and
      // again when it ends (a read beside it in the same batch must not be remembered either).
      if (!effectiveHints(call.annotations).readOnly) {
        state.watch.started(call.toolCallId, lingers(call));
        state.results.forget();
      }
      // The user approved these arguments: the host runs exactly them.
      return judged;
    });
    pipeline.hooks.event.tap({ name: NAME }, (event) => {
      if (event.type === "host_tool_end") {
        const state = sessions.get(event.call.sessionId);
        if (state?.watch.ended(event.call.toolCallId)) state.results.forget();
      } else if (event.type === "host_user_shell") {
        const state = stateOf(event.sessionId);
        state.watch.outsideChange();
        // Commands run unseen (their start never reported): one may be running at any time.
        if (event.unseen) state.watch.unseenChanges();
        state.results.forget();
      } else if (event.type === "host_user_message") {
        // "I just edited it; read it again": nothing remembered before the user's message answers after it.
        const state = sessions.get(event.sessionId);
        state?.watch.userMessage();
        state?.results.forget();
      }
    });

    if (config.repeatedCalls.enabled) {
      pipeline.hooks.toolCall.tap(
        { name: NAME, stage: TOOL_STAGE.OBSERVE + 50 },
        repeatedCallWrapper((sessionId) => stateOf(sessionId)),
      );
    }
  },
});

/**
 * The access decision for one call as a verdict: undefined when it may run, `approvedArgs` when the
 * user approved it (the arguments shown), a `blockReason` when it may not. `decided`: identity.ts's
 * decision over its names.
 */
async function judge(call: ToolGateInfo, config: PoliciesOptions, globalFile: string, decided: SubjectDecision): Promise<ToolGateDecision | undefined> {
  const { decision } = decided;
  if (!decision || decision.action === "allow") return undefined;
  const rule = describeRule(config.rules, decision);
  const who = `${call.toolName}${serverNamed(call.toolName, decided)}`;
  if (decision.action === "deny") {
    return { blockReason: `Refused by the user's policy (${rule}): ${who} may not run in this session. Do the task another way or tell the user.` };
  }
  if (call.ui.hasUI) {
    // The user sees every byte of what will run, or it does not run (ask-dialog.ts).
    const outcome = await askUser(call.ui, call.toolName, call.input, rule);
    return outcome.allowed ? { approvedArgs: outcome.approvedArgs } : { blockReason: refusal(outcome, call.toolName, rule) };
  }
  const allowLine = JSON.stringify({ tools: allowGlobFor(call.toolName, decided), action: "allow" });
  return {
    blockReason:
      `Refused: ${rule} asks the user before ${who} runs, and no one can answer in this mode (print mode). ` +
      `To allow it without asking, the user adds ${allowLine} before that rule in policies.rules of ${globalFile}.`,
  };
}
