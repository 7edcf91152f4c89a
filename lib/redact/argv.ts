/**
 * Argument lists (a server's or KotaDB's command line) as text for messages: the value after an
 * option that names a secret (`--token X`, `--api-key=X`, `-p X` is not guessed) is hidden, and
 * every argument also goes through the redactor's rules, so a token of a known shape in any position
 * is hidden too.
 */
import { placeholder, type Redactor } from "./redactor.ts";

/** Option names whose value is a secret: --token, --api-key, --password, --secret, --auth, --bearer, … */
const SECRET_OPTION =
  /^--?(?:[a-z0-9]+[-_])*(?:token|api[-_]?key|apikey|access[-_]?key|secret|password|passwd|pwd|pass|auth|authorization|bearer|credentials?|private[-_]?key)(?:=|$)/i;

/** `args` with secret option values and known secret shapes replaced (a new array). */
export function redactArgs(args: readonly string[], redactor?: Pick<Redactor, "redact">): string[] {
  const out: string[] = [];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext) {
      hideNext = false;
      if (!arg.startsWith("-")) {
        out.push(placeholder("argument"));
        continue;
      }
    }
    if (SECRET_OPTION.test(arg)) {
      const eq = arg.indexOf("=");
      if (eq === -1) hideNext = true;
      else if (eq + 1 < arg.length) {
        out.push(`${arg.slice(0, eq + 1)}${placeholder("argument")}`);
        continue;
      }
    }
    out.push(redactor ? redactor.redact(arg) : arg);
  }
  return out;
}

/** The command line `command arg…` with {@link redactArgs} applied, for messages. */
export function redactedCommandLine(command: string, args: readonly string[], redactor?: Pick<Redactor, "redact">): string {
  return [redactor ? redactor.redact(command) : command, ...redactArgs(args, redactor)].join(" ");
}

/**
 * The values {@link redactArgs} hides by their option's name (`--token X`, `--api-key=X`): add them
 * to a redactor as literals, so a server that echoes its arguments (stderr, an error) is hidden too.
 */
export function secretArgValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!SECRET_OPTION.test(arg)) continue;
    const eq = arg.indexOf("=");
    if (eq !== -1) {
      if (eq + 1 < arg.length) out.push(arg.slice(eq + 1));
    } else if (i + 1 < args.length && !args[i + 1]!.startsWith("-")) out.push(args[i + 1]!);
  }
  return out;
}
