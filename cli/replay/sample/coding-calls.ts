/**
 * The "coding" call mix of the session generator: what a coding agent does beyond reading, in the
 * proportions of one. Reads (a fifth of them repeats of an earlier read with the same arguments, some
 * re-reads of a file after it changed), `edit` calls on files read earlier (about one in eight fails
 * with pi's own not-found error), `write` calls of 2-20 KB files, `bash` commands that change a file
 * (`sed -i`, `prettier --write`, `eslint --fix`) and read-only ones (some failing: tests, the type
 * checker), and `ls`/`kota_deps` calls repeated with the same arguments and the same answer.
 *
 * Tool arguments and results have the shapes pi's tools use (pi 0.73: `edit` takes `{ path, edits:
 * [{ oldText, newText }] }` and still accepts the older top-level `oldText`/`newText`, which some
 * models send). A file's text is generated once per version, so a repeated read of an unchanged file
 * returns the same bytes, and a read after a change returns new ones.
 */

/** What one generated tool call returns. */
export interface ToolOutcome {
  content: unknown[];
  details?: Record<string, unknown>;
  isError?: boolean;
}

/** One generated tool call; `result` runs after every call of the round is made. */
export interface GenCall {
  name: string;
  args: Record<string, unknown>;
  result: () => ToolOutcome;
}

/** The generator's random source and text makers, shared with the call mixes. */
export interface GenKit {
  rand: () => number;
  pick: <T>(xs: readonly T[]) => T;
  between: (lo: number, hi: number) => number;
  /** Lines from `line` until `chars` characters. */
  text: (chars: number, line: () => string) => string;
  codeLine: () => string;
  /** Prose of about `chars` characters on one line. */
  prose: (chars: number) => string;
  files: readonly string[];
  symbols: readonly string[];
  words: readonly string[];
  /** Multiplies tool output sizes. */
  scale: number;
}

/** pi's edit tool error when an `oldText` is not in the file (one edit / several edits). */
export const editNotFound = (path: string, index: number, total: number): string =>
  total === 1
    ? `Could not find the exact text in ${path}. The old text must match exactly including all whitespace and newlines.`
    : `Could not find edits[${index}] in ${path}. The oldText must match exactly including all whitespace and newlines.`;

/** What the mix remembers; plain data, so the generator can save and restore it around an abandoned branch. */
export interface CodingState {
  /** Version of each file the session changed (absent: 0). */
  version: Record<string, number>;
  /** Text of a file at a version (`path@version`), generated on the first read. */
  texts: Record<string, string>;
  /** Arguments of earlier successful reads. */
  reads: Array<Record<string, unknown>>;
  /** Files changed so far, newest last. */
  changed: string[];
  /** Files written by the session. */
  written: string[];
  /** Earlier ls / kota_deps calls with their answers. */
  nav: Array<{ name: string; args: Record<string, unknown>; text: string }>;
}

/** A fresh state. */
export const newCodingState = (): CodingState => ({ version: {}, texts: {}, reads: [], changed: [], written: [], nav: [] });

/**
 * Returns the next call of the coding mix. `other` makes a call of the generator's read-mostly mix
 * (searches, usages, grep), used for the share of calls the coding mix does not model itself.
 */
export function codingCalls(kit: GenKit, state: CodingState, other: () => GenCall): () => GenCall {
  const calls = new CodingMix(kit, state);
  /** Cumulative shares of the mix (the rest: the read-mostly mix's searches). */
  const mix: Array<[number, () => GenCall]> = [
    [0.24, () => calls.freshRead()],
    [0.32, () => calls.repeatRead()],
    [0.38, () => calls.readAfterChange()],
    [0.52, () => calls.edit()],
    [0.56, () => calls.write()],
    [0.62, () => calls.changingBash()],
    [0.74, () => calls.readOnlyBash()],
    [0.81, () => calls.navigate()],
  ];
  return () => {
    const r = kit.rand();
    return (mix.find(([upTo]) => r < upTo)?.[1] ?? other)();
  };
}

const tx = (t: string) => [{ type: "text", text: t }];

const numbered = (body: string, from: number) =>
  body
    .split("\n")
    .map((l, i) => `${String(from + i).padStart(4)}  ${l}`)
    .join("\n");

/** The coding mix's calls, one method per kind, over the kit and the state they share. */
class CodingMix {
  constructor(
    private readonly kit: GenKit,
    private readonly state: CodingState,
  ) {}

  private knownFiles(): string[] {
    return [...this.kit.files, ...this.state.written];
  }

  private fileText(path: string): string {
    const key = `${path}@${this.state.version[path] ?? 0}`;
    return (this.state.texts[key] ??= this.kit.text(this.kit.between(3000, 12000) * this.kit.scale, this.kit.codeLine));
  }

  private changed(path: string): void {
    const state = this.state;
    state.version[path] = (state.version[path] ?? 0) + 1;
    state.changed = [...state.changed.filter((p) => p !== path), path].slice(-8);
  }

  /** A slice of the file's current text, as an edit's oldText quotes it. */
  private excerpt(path: string, chars: number): string {
    const body = this.fileText(path);
    const start = this.kit.between(0, Math.max(1, body.length - chars));
    return body.slice(start, start + chars);
  }

  private read(args: Record<string, unknown>): GenCall {
    return {
      name: "read",
      args,
      result: () => {
        const path = String(args.path);
        if (!this.knownFiles().includes(path)) return { content: tx(`ENOENT: no such file or directory, open '${path}'`), isError: true };
        this.state.reads.push(args);
        const offset = typeof args.offset === "number" ? args.offset : 1;
        const lines = this.fileText(path).split("\n");
        return { content: tx(numbered(lines.slice(offset - 1, typeof args.limit === "number" ? offset - 1 + args.limit : undefined).join("\n"), offset)) };
      },
    };
  }

  freshRead(): GenCall {
    const { rand, pick, between } = this.kit;
    const path = rand() < 0.04 ? pick(this.kit.files).replace(".ts", ".tsx") : pick(this.knownFiles());
    return this.read({ path, ...(rand() < 0.25 ? { offset: between(1, 80), limit: 120 } : {}) });
  }

  repeatRead(): GenCall {
    return this.state.reads.length ? this.read({ ...this.kit.pick(this.state.reads.slice(-30)) }) : this.freshRead();
  }

  readAfterChange(): GenCall {
    return this.state.changed.length ? this.read({ path: this.kit.pick(this.state.changed.slice(-3)) }) : this.freshRead();
  }

  edit(): GenCall {
    const { rand, pick, between, text, codeLine } = this.kit;
    if (!this.state.reads.length) return this.freshRead();
    const path = String(pick(this.state.reads.slice(-20)).path);
    const count = rand() < 0.8 ? 1 : 2;
    const fails = rand() < 0.12;
    const failing = count === 1 ? 0 : between(0, count);
    const edits = Array.from({ length: count }, (_, i) => {
      const oldText = fails && i === failing ? text(between(100, 1500), codeLine) : this.excerpt(path, between(100, 1500));
      return { oldText, newText: text(Math.max(100, Math.min(3000, Math.round(oldText.length * (0.6 + rand() * 1.2)))), codeLine) };
    });
    const args = count === 1 && rand() < 0.2 ? { path, oldText: edits[0]!.oldText, newText: edits[0]!.newText } : { path, edits };
    return {
      name: "edit",
      args,
      result: () => {
        if (fails) return { content: tx(editNotFound(path, failing, count)), isError: true };
        this.changed(path);
        const diff = edits.map((e) => `-${e.oldText.split("\n")[0]}\n+${e.newText.split("\n")[0]}`).join("\n");
        return { content: tx(`Successfully replaced ${count} block(s) in ${path}.`), details: { diff, firstChangedLine: between(1, 300) } };
      },
    };
  }

  write(): GenCall {
    const { rand, pick, between, text, codeLine } = this.kit;
    const path =
      rand() < 0.3 ? pick(this.knownFiles()) : `src/${pick(["auth", "http", "users", "billing", "jobs"])}/${pick(this.kit.words)}-${pick(this.kit.words)}.ts`;
    const content = text(between(2000, 20000), codeLine);
    return {
      name: "write",
      args: { path, content },
      result: () => {
        if (!this.knownFiles().includes(path)) this.state.written.push(path);
        this.changed(path);
        this.state.texts[`${path}@${this.state.version[path]}`] = content;
        return { content: tx(`Successfully wrote ${content.length} bytes to ${path}`) };
      },
    };
  }

  changingBash(): GenCall {
    const { pick, between } = this.kit;
    const path = this.state.reads.length ? String(pick(this.state.reads.slice(-20)).path) : pick(this.kit.files);
    const [command, output] = pick([
      [`sed -i 's/${pick(this.kit.symbols)}/${pick(this.kit.symbols)}V2/g' ${path}`, "(no output)"],
      [`npx prettier --write ${path}`, `${path} ${between(20, 300)}ms`],
      [`npx eslint --fix ${path}`, "(no output)"],
    ] as const);
    return { name: "bash", args: { command }, result: () => (this.changed(path), { content: tx(output) }) };
  }

  readOnlyBash(): GenCall {
    const { kit } = this;
    const { rand, pick, between, text, codeLine } = kit;
    const command = pick([
      `rg -n "${pick(kit.symbols)}" src test`,
      "git status --short",
      `git diff ${pick(kit.files)}`,
      "npm test -- --reporter=dot",
      "npx tsc --noEmit",
    ]);
    const fails = (command.startsWith("npm") && rand() < 0.4) || (command.includes("tsc") && rand() < 0.5);
    const failure = () =>
      command.startsWith("npm")
        ? `${text(between(800, 2500) * kit.scale, () => `FAIL test/${pick(kit.words)}.test.ts > ${pick(kit.words)}: expected ${between(1, 9)} to be ${between(1, 9)}`)}\n\nCommand exited with code 1`
        : `${text(between(300, 1800) * kit.scale, () => `${pick(this.knownFiles())}(${between(1, 300)},${between(1, 40)}): error TS2345: Argument of type '${pick(["string", "number"])}' is not assignable to parameter of type '${pick(kit.symbols)}'.`)}\n\nCommand exited with code 2`;
    return {
      name: "bash",
      args: { command },
      result: () =>
        fails
          ? { content: tx(failure()), isError: true }
          : { content: tx(text(between(300, 5000) * kit.scale, () => `${pick(this.knownFiles())}:${between(1, 400)}:  ${codeLine().trim()}`)) },
    };
  }

  navigate(): GenCall {
    const { kit, state } = this;
    const { rand, pick, between, text } = kit;
    if (state.nav.length && rand() < 0.5) {
      const earlier = pick(state.nav);
      return { name: earlier.name, args: { ...earlier.args }, result: () => ({ content: tx(earlier.text) }) };
    }
    const call =
      rand() < 0.5
        ? {
            name: "ls",
            args: { path: pick(["src", "src/auth", "src/http", "src/users", "test"]) },
            text: text(between(200, 900), () => `${pick(kit.words)}${pick(["/", ".ts", ".test.ts"])}`),
          }
        : {
            name: "kota_deps",
            args: { file_path: pick(kit.files), direction: pick(["both", "dependents", "dependencies"]), depth: between(1, 3) },
            text: text(between(500, 3500) * kit.scale, () => `  ${pick(["->", "<-"])} ${pick(kit.files)} (${pick(kit.symbols)})`),
          };
    return { name: call.name, args: call.args, result: () => (state.nav.push(call), { content: tx(call.text) }) };
  }
}
