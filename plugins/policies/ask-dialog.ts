/**
 * The `ask` dialog: what the user approves is what runs, byte for byte. The arguments are shown as
 * indented JSON (strings quoted and escaped, so a value cannot forge another argument's line) with
 * every control, invisible and look-alike character made visible (`visibleLines` in core), and long
 * runs of spaces counted (`[400 spaces]`) so padding cannot push the rest of a line out of sight. A
 * call that fits the dialog is shown whole in pi's confirm dialog. A longer one (a command padded so its
 * tail falls off the screen) is shown head and tail with the hidden length named, and runs only after
 * the user opened the whole of it in pi's editor dialog (scrollable in the terminal, the full text as
 * `prefill` in RPC mode), submitted it unchanged and then said yes.
 */
import type { UiBridge } from "../../core/index.ts";
import { visible, visibleLines } from "../../lib/visible/index.ts";

/**
 * Most terminal rows a call may take to be shown whole in the confirm dialog, lines wrapped at
 * {@link DIALOG_COLUMNS}: with pi's title, options and borders it then fits a 24-row terminal, so no
 * part of it scrolls out of sight while the user decides.
 */
export const WHOLE_CALL_MAX_ROWS = 16;
/** Columns a dialog line has in an 80-column terminal (pi's borders and padding take the rest). */
export const DIALOG_COLUMNS = 76;
/** What the dialog shows of a longer call: its first characters and lines, and its last ones. */
const HEAD_CHARS = 300;
const HEAD_LINES = 6;
const TAIL_CHARS = 200;
const TAIL_LINES = 4;

/** Terminal rows `text` takes at {@link DIALOG_COLUMNS} columns (a wide character, CJK or emoji, counts two). */
export function dialogRows(text: string): number {
  let rows = 0;
  for (const line of text.split("\n")) {
    let columns = 0;
    for (const ch of line) columns += ch.codePointAt(0)! >= 0x1100 ? 2 : 1;
    rows += Math.max(1, Math.ceil(columns / DIALOG_COLUMNS));
  }
  return rows;
}

const TITLE = "Allow tool call?";

/**
 * The user's answer: allowed, with the arguments the user was shown as JSON (`approvedArgs`: the host
 * runs exactly these), or why the call did not run (the model reads it).
 */
export type AskOutcome =
  | { allowed: true; approvedArgs: string }
  | { allowed: false; reason: "declined" | "not-opened" | "changed" | "altered" | "unshowable"; chars?: number };

/** The arguments as the dialog shows them: indented JSON with every hidden or disguised character escaped; undefined when they cannot be written out. */
export function callText(input: Readonly<Record<string, unknown>>): string | undefined {
  try {
    const json = JSON.stringify(input, null, 2);
    return json === undefined ? undefined : visibleLines(json);
  } catch {
    return undefined;
  }
}

/** Runs of this many spaces or more are shown counted (`[400 spaces]`): padding must not push the rest of a line out of sight. */
const BLANK_RUN = / {16,}/g;

/** `text` with each long run of spaces written as its count, for the confirm and select dialogs. */
export function withBlankRunsCounted(text: string): string {
  return text.replace(BLANK_RUN, (run) => `[${run.length} spaces]`);
}

/** A long text as its head and tail, with what lies between them counted. */
export function headAndTail(text: string): { head: string; tail: string; hiddenChars: number; hiddenLines: number } {
  // Never cut between the two halves of a surrogate pair (an emoji would show as two lone halves).
  const atBoundary = (at: number) => (/[\udc00-\udfff]/.test(text[at] ?? "") ? at + 1 : at);
  let head = text.slice(0, atBoundary(HEAD_CHARS));
  const headBreak = nthIndexOf(head, "\n", HEAD_LINES);
  if (headBreak >= 0) head = head.slice(0, headBreak);
  let tail = text.slice(atBoundary(Math.max(head.length, text.length - TAIL_CHARS)));
  const tailLines = tail.split("\n");
  if (tailLines.length > TAIL_LINES) tail = tailLines.slice(-TAIL_LINES).join("\n");
  const hidden = text.slice(head.length, text.length - tail.length);
  return { head, tail, hiddenChars: hidden.length, hiddenLines: hidden ? hidden.split("\n").length : 0 };
}

function nthIndexOf(text: string, needle: string, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) return -1;
  }
  return at;
}

/**
 * Asks the user whether `toolName` may run with `input`, showing every byte of it (see the file
 * comment). `rule` names the config line that asks. Refuses (never allows) when the call cannot be
 * shown whole: no select or editor dialog, cancelled, or the text came back changed.
 */
export async function askUser(ui: UiBridge, toolName: string, input: Readonly<Record<string, unknown>>, rule: string): Promise<AskOutcome> {
  const text = callText(input);
  const shownArgs = argsJson(input);
  if (text === undefined || shownArgs === undefined) return { allowed: false, reason: "unshowable" };
  // Another extension may hold the arguments and change them while the dialog is open: a yes
  // approves what was shown, and only that.
  const answer = (yes: boolean): AskOutcome =>
    !yes
      ? { allowed: false, reason: "declined" }
      : argsJson(input) === shownArgs
        ? { allowed: true, approvedArgs: shownArgs }
        : { allowed: false, reason: "altered" };
  const tool = visible(toolName);
  const shown = withBlankRunsCounted(text);
  const lines = shown.split("\n").length;
  if (dialogRows(`${tool}\n${shown}`) <= WHOLE_CALL_MAX_ROWS) {
    return answer(await ui.confirm(TITLE, `${tool}\n${shown}\n(${rule})`));
  }
  const chars = text.length;
  if (!ui.select || !ui.editor) return { allowed: false, reason: "not-opened", chars };
  const { head, tail, hiddenChars, hiddenLines } = headAndTail(shown);
  const open = `Show the whole call (${chars} characters) before deciding`;
  const summary =
    `${TITLE} ${tool}: ${chars} characters in ${lines} lines, too long for this dialog. ` +
    `${hiddenChars} characters (${hiddenLines} lines) between its start and its end are not shown here; ` +
    "it runs only after you open and read the whole call.\n" +
    `${head}\n[... ${hiddenChars} characters not shown ...]\n${tail}\n(${rule})`;
  if ((await ui.select(summary, [open, "Refuse the call"])) !== open) return { allowed: false, reason: "not-opened", chars };
  const read = await ui.editor(
    `${tool}: the whole call, ${chars} characters. Read it to the end and submit it unchanged to be asked whether it runs; cancelling or changing it refuses the call.`,
    text,
  );
  if (read === undefined) return { allowed: false, reason: "not-opened", chars };
  // pi's editor trims what it returns; anything else changed means the user edited the call.
  if (read.trim() !== text.trim()) return { allowed: false, reason: "changed", chars };
  return answer(await ui.confirm(TITLE, `${tool}: the whole call you just read (${chars} characters), from\n${head}\n[...]\nto\n${tail}\n(${rule})`));
}

/** The arguments as JSON, to compare what runs with what was shown; undefined when they cannot be written out. */
export function argsJson(input: Readonly<Record<string, unknown>>): string | undefined {
  try {
    return JSON.stringify(input);
  } catch {
    return undefined;
  }
}

/** What the model is told when the user did not allow the call. */
export function refusal(outcome: Exclude<AskOutcome, { allowed: true }>, toolName: string, rule: string): string {
  switch (outcome.reason) {
    case "declined":
      return `The user declined this ${toolName} call (${rule}). Do not repeat it; ask the user how to go on.`;
    case "not-opened":
      return `The user did not open the whole call (${outcome.chars} characters, too long for the dialog), so this ${toolName} call did not run (${rule}). Make it shorter, or ask the user.`;
    case "changed":
      return `The user changed the call in the review editor, so this ${toolName} call did not run (${rule}); changes made there are not applied. Ask the user what to run.`;
    case "altered":
      return `The arguments of this ${toolName} call changed after they were shown to the user (another extension changed them), so it did not run (${rule}). Ask the user how to go on.`;
    case "unshowable":
      return `This ${toolName} call's arguments cannot be shown to the user, so it did not run (${rule}).`;
  }
}
