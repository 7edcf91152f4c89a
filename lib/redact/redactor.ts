/**
 * The redactor: replaces every known secret in a text by `[redacted:<rule>]`: one pass for private
 * key blocks, then one pass per rule in order (an earlier rule's placeholder is never matched by a
 * later one), then the literal values (the env given to a server). The
 * result is idempotent (a placeholder never matches a rule) and never longer in secrets than its
 * input. Linear time: see rules.ts and shape.ts for why each rule is.
 */
import { keyBlockSpans } from "./key-blocks.ts";
import { BUILTIN_RULES, type RedactionRule } from "./rules.ts";
import { checkShape, escapeRegExp, shapeSource, type TokenShape } from "./shape.ts";

/** The text a secret is replaced by. */
export function placeholder(rule: string): string {
  return `[redacted:${rule}]`;
}

/** Options of a {@link Redactor}. */
export interface RedactorOptions {
  /** Built-in rule names to leave out (their false positives hurt more than they help). Default none. */
  disabledRules?: readonly string[];
  /** Extra token shapes (config `redact.patterns`, `redact.projectPatterns`). Default none. */
  shapes?: readonly TokenShape[];
  /** Exact values to hide wherever they appear, e.g. the env given to a server ({@link secretEnvValues}). */
  literals?: readonly string[];
}

/** What one call changed. */
export interface RedactionReport {
  text: string;
  /** Secrets replaced, by rule name. Empty when nothing was. */
  counts: Record<string, number>;
}

/** Literal values shorter than this are never hidden (a 3-character value would hide common words). */
export const MIN_LITERAL_LENGTH = 6;
/** At most this many literal values per redactor; further ones are ignored (bounded compile size). */
export const MAX_LITERALS = 512;
/** Longest literal value kept; longer ones are cut to this prefix and still hidden. */
export const MAX_LITERAL_LENGTH = 4096;

const PRIVATE_KEY = "private-key";
const LITERAL = "env-value";

/**
 * Hides secrets in text. Build one per governor (compiling is the only costly part) and call
 * {@link Redactor.redact} per text; {@link Redactor.addLiterals} adds values later (a server's env
 * when its plugin applies).
 */
export class Redactor {
  private rules: RedactionRule[];
  private readonly keyBlocks: boolean;
  private readonly literals = new Set<string>();
  private compiled: Array<{ name: string; re: RegExp; anchors?: readonly string[] }> = [];
  /** Secrets replaced since this redactor was built, by rule. */
  readonly totals: Record<string, number> = {};

  constructor(options: RedactorOptions = {}) {
    const off = new Set(options.disabledRules ?? []);
    this.rules = BUILTIN_RULES.filter((r) => !off.has(r.name));
    this.keyBlocks = !off.has(PRIVATE_KEY);
    for (const s of options.shapes ?? []) this.rules.push({ name: checkShape(s).name, source: shapeSource(s), finds: "", anchors: [s.prefix] });
    for (const l of options.literals ?? []) this.addLiteral(l);
    this.compile();
  }

  /** Adds exact values to hide (values under {@link MIN_LITERAL_LENGTH} characters are skipped). */
  addLiterals(values: Iterable<string>): void {
    let changed = false;
    for (const v of values) changed = this.addLiteral(v) || changed;
    if (changed) this.compile();
  }

  /** The text with every secret replaced. */
  redact(text: string): string {
    return this.redactWithReport(text).text;
  }

  /** The text with every secret replaced, and how many of each rule. */
  redactWithReport(text: string): RedactionReport {
    const counts: Record<string, number> = {};
    if (text.length < 8) return { text, counts };
    const count = (name: string) => {
      counts[name] = (counts[name] ?? 0) + 1;
      this.totals[name] = (this.totals[name] ?? 0) + 1;
    };
    let out = text;
    if (this.keyBlocks && out.includes("-----BEGIN ")) {
      const spans = keyBlockSpans(out);
      if (spans.length) {
        let next = "";
        let at = 0;
        for (const s of spans) {
          next += out.slice(at, s.start) + placeholder(PRIVATE_KEY);
          at = s.end;
          count(PRIVATE_KEY);
        }
        out = next + out.slice(at);
      }
    }
    // One pass per rule, skipped when none of its anchors occurs (indexOf is far cheaper than a
    // regular expression that must try every position): most texts hold none of most anchors.
    for (const c of this.compiled) {
      if (c.anchors && !c.anchors.some((a) => out.includes(a))) continue;
      c.re.lastIndex = 0;
      out = out.replace(c.re, (...args: unknown[]) => {
        const groups = args[args.length - 1] as Record<string, string | undefined> | undefined;
        count(c.name);
        return (groups?.k ?? "") + placeholder(c.name);
      });
    }
    return { text: out, counts };
  }

  private addLiteral(value: string): boolean {
    const v = value.length > MAX_LITERAL_LENGTH ? value.slice(0, MAX_LITERAL_LENGTH) : value;
    if (v.length < MIN_LITERAL_LENGTH || this.literals.has(v) || this.literals.size >= MAX_LITERALS) return false;
    // A value inside a placeholder ("redacted", "github-token") would break what was hidden already.
    if (this.rules.some((r) => placeholder(r.name).includes(v)) || placeholder(LITERAL).includes(v) || placeholder(PRIVATE_KEY).includes(v)) return false;
    this.literals.add(v);
    return true;
  }

  private compile(): void {
    this.compiled = this.rules.map((rule) => ({ name: rule.name, re: new RegExp(rule.source, "g"), ...(rule.anchors ? { anchors: rule.anchors } : {}) }));
    if (this.literals.size) {
      // Longest first, so a value that contains another is hidden whole.
      const alternatives = [...this.literals].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.compiled.push({ name: LITERAL, re: new RegExp(alternatives.join("|"), "g") });
    }
  }
}

/**
 * Which values of an env given to a server are secrets to hide: every value of at least
 * {@link MIN_LITERAL_LENGTH} characters that is not a path, a number or a plain word list (`HOME`,
 * `NODE_ENV=production` and `PATH` stay readable). The env the user configured is the point: a
 * server's token usually comes that way.
 */
export function secretEnvValues(env: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const value of Object.values(env ?? {})) {
    if (typeof value !== "string" || value.length < MIN_LITERAL_LENGTH) continue;
    if (/^(?:[/~.]|[A-Za-z]:[\\/])/.test(value)) continue; // a path
    if (/^[0-9.,:_-]+$/.test(value)) continue; // a number, a version, a port list
    if (/^[a-z]+(?:[ ,:;|_-][a-z]+)*$/.test(value)) continue; // lower-case words and names: production, info, debug, fs_remote
    if (value.includes(":") && /^(?:[/~][^:]*)(?::[/~][^:]*)+$/.test(value)) continue; // a PATH-like list
    out.push(value);
  }
  return out;
}
