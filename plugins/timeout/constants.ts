/**
 * The project-wide tool timeout: every governed tool attempt that runs longer than this is
 * ended with a `TIMEOUT_EXCEEDED` observation telling the model to reassess, not repeat.
 */

/** Default limit of one tool attempt, in milliseconds: 300 000 ms = 5 minutes. */
export const TOOL_TIMEOUT_MS = 300_000;

/** Plugin name, as taps, logs and errors show it. */
export const TIMEOUT_PLUGIN = "governor:timeout";
