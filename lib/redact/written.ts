/**
 * The redactor for bytes written: every writer of a file (the blob cache, the recall index, the
 * execution log) and every exporter (telemetry) hides secrets with the session's redactor when the
 * redact plugin runs (it knows the user's shapes and the servers' env values), and with the built-in
 * rules when it does not: turning the plugin off decides what the model reads, never what reaches a
 * disk or leaves the machine. This is the one place that choice is made.
 */
import { Redactor } from "./redactor.ts";

/** What a writer needs of a redactor. */
export type TextRedactor = Pick<Redactor, "redact">;

let builtin: Redactor | undefined;

/** The built-in rules, compiled once per process (compiling is the only costly part). */
export function builtinRedactor(): Redactor {
  builtin ??= new Redactor();
  return builtin;
}

/** The redactor a writer uses: the session's when there is one, else the built-in rules. */
export function redactorForWrites(session?: TextRedactor): TextRedactor {
  return session ?? builtinRedactor();
}
