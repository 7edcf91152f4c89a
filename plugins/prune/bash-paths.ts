/**
 * Which files a bash command may change, for stale reads: the paths named by the parts of the
 * command that are not read-only.
 *
 * The command is the model's text, so it is read by one linear pass (quotes, escapes, separators,
 * redirections, here-documents), never by a backtracking regex, and only its first
 * {@link MAX_COMMAND_CHARS} characters are read. Each simple command (split at `;`, `&&`, `||`, `|`,
 * `&`, newlines, parentheses) is judged on its own: `cat src/a.ts | tee src/b.ts` changes
 * src/b.ts only. A command with a command or process substitution (`$(...)`, backticks, `<(...)`)
 * is judged as a whole: every path it names may change.
 *
 * Read-only: the first word after `NAME=value` assignments is one of {@link READ_ONLY_COMMANDS}, or
 * `git` with one of {@link READ_ONLY_GIT}, with no output redirection to a file (`> /dev/null` and
 * `2>&1` are fine) and no write flag (`--in-place`, `--write`, `--fix`, `--output`, `sort -o`,
 * `uniq`'s output operand). `-i` is not a write flag here: for these commands it means "ignore
 * case" (grep, rg, diff, uniq) or "inode" (ls); in-place editors (sed, perl) are not read-only
 * anyway. Everything else may change what it names, so running a script counts as naming it.
 */

/** Commands that only read when run without a write flag or an output redirection. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "grep",
  "rg",
  "ls",
  "stat",
  "file",
  "diff",
  "nl",
  "sort",
  "uniq",
  "cd",
  "pwd",
  "echo",
]);
/** `git` subcommands that only read. */
export const READ_ONLY_GIT: ReadonlySet<string> = new Set(["diff", "log", "show", "blame", "status"]);
/** Flags that make any command write. */
const WRITE_FLAGS = new Set(["--in-place", "--write", "--fix", "--output"]);
/** git's global options that take a value as the next word. */
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace"]);
/** uniq's options that take a value as the next word. */
const UNIQ_VALUE_OPTIONS = new Set(["-f", "-s", "-w"]);

/** Only this many characters of a command are read: the work stays bounded whatever the model sends. */
export const MAX_COMMAND_CHARS = 65_536;

/** One simple command: its words (quotes removed) and where its output goes. */
interface SimpleCommand {
  words: string[];
  /** Files its output is redirected to (`> f`, `>> f`, `&> f`, `<> f`). */
  redirects: string[];
}

interface ParsedCommand {
  commands: SimpleCommand[];
  /** A command or process substitution runs commands this reading does not judge one by one. */
  opaque: boolean;
}

/** Characters that may end an ordinary run of a word (`$` only before "(", `#` only at a word's start). */
const SPECIAL = new Uint8Array(128);
for (const c of "\\'\"`$ \t\r\n&;|()<>") SPECIAL[c.charCodeAt(0)] = 1;

const isDigits = (w: string): boolean => {
  if (!w) return false;
  for (let k = 0; k < w.length; k++) if (w.charCodeAt(k) < 48 || w.charCodeAt(k) > 57) return false;
  return true;
};

/** Splits a command into simple commands in one pass over at most MAX_COMMAND_CHARS characters. */
export function parseCommand(command: string): ParsedCommand {
  const scan = new CommandScan(command.length > MAX_COMMAND_CHARS ? command.slice(0, MAX_COMMAND_CHARS) : command);
  let i = 0;
  while (i < scan.s.length) i = scan.step(i);
  scan.endCommand();
  return { commands: scan.commands, opaque: scan.opaque };
}

/** The state of one pass of {@link parseCommand}: each method reads from `i` and returns where to go on. */
class CommandScan {
  readonly commands: SimpleCommand[] = [];
  opaque = false;
  private current: SimpleCommand = { words: [], redirects: [] };
  private word = "";
  private inWord = false;
  private next: "word" | "redirect" | "heredoc" = "word";
  private stripTabs = false;
  private readonly heredocs: Array<{ delimiter: string; stripTabs: boolean }> = [];

  constructor(readonly s: string) {}

  private endWord(): void {
    if (!this.inWord) return;
    if (this.next === "redirect") this.current.redirects.push(this.word);
    else if (this.next === "heredoc") this.heredocs.push({ delimiter: this.word, stripTabs: this.stripTabs });
    else this.current.words.push(this.word);
    this.next = "word";
    this.word = "";
    this.inWord = false;
  }

  endCommand(): void {
    this.endWord();
    if (this.next === "redirect") this.current.redirects.push(""); // a redirection without a target: judged as writing
    this.next = "word";
    if (this.current.words.length || this.current.redirects.length) this.commands.push(this.current);
    this.current = { words: [], redirects: [] };
  }

  /** Skips here-document bodies after a newline: each ends at a line equal to its delimiter. */
  private skipBodies(from: number): number {
    const s = this.s;
    let i = from;
    for (const doc of this.heredocs) {
      while (i < s.length) {
        const nl = s.indexOf("\n", i);
        const end = nl < 0 ? s.length : nl;
        let line = s.slice(i, end);
        if (doc.stripTabs) line = line.replace(/^\t+/, "");
        i = end + 1;
        if (line === doc.delimiter) break;
      }
    }
    this.heredocs.length = 0;
    return Math.min(i, s.length);
  }

  /** A digit word right before `>` or `<` is a descriptor, not a word. */
  private endWordBeforeRedirect(): void {
    if (this.inWord && isDigits(this.word)) {
      this.word = "";
      this.inWord = false;
    } else this.endWord();
  }

  step(i: number): number {
    const s = this.s;
    const c = s[i]!;
    if (c === "\\") {
      if (i + 1 < s.length && s[i + 1] !== "\n") {
        this.word += s[i + 1];
        this.inWord = true;
      }
      return i + 2;
    }
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      const end = close < 0 ? s.length : close;
      this.word += s.slice(i + 1, end);
      this.inWord = true;
      return end + 1;
    }
    if (c === '"') return this.doubleQuoted(i);
    if (c === "`" || (c === "$" && s[i + 1] === "(")) {
      this.opaque = true;
      this.word += c;
      this.inWord = true;
      return i + 1;
    }
    if (c === "#" && !this.inWord) {
      const nl = s.indexOf("\n", i);
      return nl < 0 ? s.length : nl;
    }
    if (c === " " || c === "\t" || c === "\r") {
      this.endWord();
      return i + 1;
    }
    if (c === "\n") {
      this.endCommand();
      return this.heredocs.length ? this.skipBodies(i + 1) : i + 1;
    }
    if (c === "&" && s[i + 1] === ">") {
      this.endWord();
      this.next = "redirect";
      return i + (s[i + 2] === ">" ? 3 : 2);
    }
    if (c === ";" || c === "|" || c === "&" || c === "(" || c === ")") {
      this.endCommand();
      return i + 1;
    }
    if (c === ">") return this.output(i);
    if (c === "<") return this.input(i);
    return this.ordinaryRun(i);
  }

  private doubleQuoted(from: number): number {
    const s = this.s;
    this.inWord = true;
    let i = from + 1;
    while (i < s.length && s[i] !== '"') {
      const d = s[i]!;
      if (d === "\\" && i + 1 < s.length && '$`"\\\n'.includes(s[i + 1]!)) {
        this.word += s[i + 1];
        i += 2;
        continue;
      }
      if (d === "`" || (d === "$" && s[i + 1] === "(")) this.opaque = true;
      this.word += d;
      i++;
    }
    return i + 1;
  }

  /** `>`, `>>`, `>|`, `>&2`, `>(...)`, `>& file`. */
  private output(from: number): number {
    const s = this.s;
    this.endWordBeforeRedirect();
    let i = from + 1;
    if (s[i] === ">" || s[i] === "|") i++;
    if (s[i] === "&" && (s[i + 1] === "-" || isDigits(s[i + 1] ?? ""))) {
      // `>&2`, `2>&1`, `>&-`: duplicates or closes a descriptor, writes no file.
      i += 2;
      while (i < s.length && isDigits(s[i]!)) i++;
    } else if (s[i] === "(") {
      this.opaque = true;
      i++;
    } else {
      if (s[i] === "&") i++; // `>& file`: both streams to the file
      this.next = "redirect";
    }
    return i;
  }

  /** `<`, `<<<`, `<<` and `<<-` (here-documents), `<(...)`, `<>`. */
  private input(i: number): number {
    const s = this.s;
    this.endWordBeforeRedirect();
    if (s[i + 1] === "<" && s[i + 2] === "<") return i + 3; // here-string: the next word is input
    if (s[i + 1] === "<") {
      i += 2;
      this.stripTabs = s[i] === "-";
      if (this.stripTabs) i++;
      this.next = "heredoc";
      return i;
    }
    if (s[i + 1] === "(") {
      this.opaque = true;
      return i + 2;
    }
    if (s[i + 1] === ">") {
      this.next = "redirect";
      return i + 2;
    }
    return i + 1;
  }

  /** An ordinary run: appended at once, not character by character. */
  private ordinaryRun(i: number): number {
    const s = this.s;
    let j = i + 1;
    while (j < s.length) {
      const code = s.charCodeAt(j);
      if (code < 128 && SPECIAL[code]) break;
      j++;
    }
    this.word += s.slice(i, j);
    this.inWord = true;
    return j;
  }
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** Whether `name=value` assigns a shell variable (a name of letters, digits and "_", not first a digit). */
function isAssignment(word: string): boolean {
  const eq = word.indexOf("=");
  if (eq <= 0) return false;
  for (let k = 0; k < eq; k++) {
    const code = word.charCodeAt(k);
    const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
    if (!letter && !(k > 0 && code >= 48 && code <= 57)) return false;
  }
  return true;
}

function hasWriteFlag(args: readonly string[]): boolean {
  return args.some((a) => WRITE_FLAGS.has(a) || a.startsWith("--output=") || a.startsWith("--in-place="));
}

/** Whether one simple command only reads (see the module comment). */
export function isReadOnly(command: SimpleCommand): boolean {
  if (command.redirects.some((target) => target !== "/dev/null")) return false;
  const words = command.words;
  let k = 0;
  while (k < words.length && isAssignment(words[k]!)) k++;
  if (k === words.length) return true; // assignments only: no file changes
  const name = baseName(words[k]!);
  const args = words.slice(k + 1);
  if (hasWriteFlag(args)) return false;
  if (name === "git") {
    let j = 0;
    while (j < args.length && args[j]!.startsWith("-")) j += GIT_VALUE_OPTIONS.has(args[j]!) ? 2 : 1;
    return j < args.length && READ_ONLY_GIT.has(args[j]!);
  }
  if (!READ_ONLY_COMMANDS.has(name)) return false;
  if (name === "sort" && args.some((a) => a.length > 1 && a[0] === "-" && a[1] !== "-" && a.includes("o"))) return false;
  if (name === "uniq") {
    let operands = 0;
    for (let j = 0; j < args.length; j++) {
      if (UNIQ_VALUE_OPTIONS.has(args[j]!)) j++;
      else if (args[j] === "-" || !args[j]!.startsWith("-")) operands++;
    }
    if (operands >= 2) return false; // `uniq in out` writes out
  }
  return true;
}

/** Characters a path token is made of; any other character bounds it. Non-ASCII letters count. */
function isPathChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 46 /* . */ ||
    code === 95 /* _ */ ||
    code === 45 /* - */ ||
    code === 47 /* / */ ||
    code === 126 /* ~ */ ||
    code === 43 /* + */ ||
    code === 64 /* @ */ ||
    code === 37 /* % */ ||
    code >= 128
  );
}

/** The word itself (a quoted path may hold spaces) and each maximal run of path characters in it. */
function pathTokens(word: string, out: string[]): void {
  if (!word) return;
  out.push(word);
  let start = -1;
  for (let k = 0; k <= word.length; k++) {
    const inPath = k < word.length && isPathChar(word.charCodeAt(k));
    if (inPath && start < 0) start = k;
    else if (!inPath && start >= 0) {
      if (start > 0 || k < word.length) out.push(word.slice(start, k));
      start = -1;
    }
  }
}

/**
 * The path tokens (as spelled) that the non-read-only parts of `command` name: what a stale-read
 * check compares, after normalizing, with the paths of earlier reads. Linear in the command's length.
 */
export function bashChangedPaths(command: string): string[] {
  const { commands, opaque } = parseCommand(command);
  const out: string[] = [];
  for (const c of commands) {
    if (!opaque && isReadOnly(c)) continue;
    for (const w of c.words) pathTokens(w, out);
    for (const w of c.redirects) pathTokens(w, out);
  }
  return out;
}
