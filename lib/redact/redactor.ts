/**
 * The redactor: replaces every known secret in a text by `[redacted:<rule>]`. The user's rules run
 * first, in order, each on what the ones before left: private key blocks, the built-in rules, the
 * user's shapes. Shapes a project added run after them, only where nothing is hidden yet, so a shape
 * can never cut into a secret a user's rule finds: adding a shape only hides more. The exact values
 * (the env given to a server) are looked for in the whole text, whatever else matched around them,
 * and the union of everything found is hidden. Every pass sees a copy of the text where what is
 * found is masked (as long as it, never matched by a rule), so offsets hold; the placeholders go in
 * once at the end. The passes run on the text's views: its string escapes decoded (escapes.ts) and,
 * when it holds terminal escape sequences, that view without them (terminal.ts); what they find is
 * hidden in the text over the whole escapes and sequences it came from, so a secret escaped to any
 * depth of JSON, or behind a colour code, is found and the output stays valid JSON. The result is
 * idempotent (a placeholder never matches a rule) and never longer in secrets than its input. Linear
 * time: see anchors.ts, rules.ts, shape.ts and value-scan.ts for why each rule is.
 */
import { AnchorScan } from "./anchors.ts";
import { CutPieces } from "./cut-pieces.ts";
import { unescapedView } from "./escapes.ts";
import { ansiStrippedView } from "./terminal.ts";
import { BASE64_BEGIN, keyBlockSpans, type Span } from "./key-blocks.ts";
import { BUILTIN_RULES, type RedactionRule } from "./rules.ts";
import { checkShape, escapeRegExp, shapeSource, type TokenShape } from "./shape.ts";
import { RunMemo, type ValueRule } from "./value-scan.ts";

/** The text a secret is replaced by. */
export function placeholder(rule: string): string {
  return `[redacted:${rule}]`;
}

/** Options of a {@link Redactor}. */
export interface RedactorOptions {
  /** Built-in rule names to leave out (their false positives hurt more than they help). Default none. */
  disabledRules?: readonly string[];
  /** The user's own token shapes (config `redact.patterns`): run with the built-in rules. Default none. */
  shapes?: readonly TokenShape[];
  /**
   * Shapes a config file added (`redact.projectPatterns`, which a project may set): run after every
   * rule of the user's, only over what is not hidden yet. Default none.
   */
  addedShapes?: readonly TokenShape[];
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
  /** Shapes a config file added: after the user's rules. */
  private readonly added: RedactionRule[];
  private readonly keyBlocks: boolean;
  private readonly literals = new Set<string>();
  private compiled: CompiledRule[] = [];
  private compiledAdded: CompiledRule[] = [];
  /** The exact values, longest first, as one rule. */
  private literalRule: CompiledRule | undefined;
  private anchorScan = new AnchorScan([]);
  /** The pieces of secrets a truncation marker cut (cut-pieces.ts), judged by every rule's anchors. */
  private cutPieces = new CutPieces([]);
  /** The literal values that hold a backslash (the view decodes it): searched in the text itself too. */
  private backslashLiterals: CompiledRule | undefined;
  /** Secrets replaced since this redactor was built, by rule. */
  readonly totals: Record<string, number> = {};

  constructor(options: RedactorOptions = {}) {
    const off = new Set(options.disabledRules ?? []);
    this.rules = BUILTIN_RULES.filter((r) => !off.has(r.name));
    this.keyBlocks = !off.has(PRIVATE_KEY);
    const asRule = (s: TokenShape): RedactionRule => ({ name: checkShape(s).name, source: shapeSource(s), finds: "", anchors: [s.prefix] });
    for (const s of options.shapes ?? []) this.rules.push(asRule(s));
    this.added = (options.addedShapes ?? []).map(asRule);
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

  /**
   * The text with every secret replaced, and how many of each rule. `also`: more spans of the text to
   * hide, found elsewhere (the pieces of secrets pi's cut left, cut-edges.ts).
   */
  redactWithReport(text: string, also: ReadonlyArray<Span & { rule: string }> = []): RedactionReport {
    const counts: Record<string, number> = {};
    if (text.length < 8 && !also.length) return { text, counts };
    const found = [...this.findings(text), ...also.filter((s) => s.start < s.end)];
    if (!found.length) return { text, counts };
    const count = (rule: string) => {
      counts[rule] = (counts[rule] ?? 0) + 1;
      this.totals[rule] = (this.totals[rule] ?? 0) + 1;
    };
    // Each find counts once; an exact value only where no other find already hides it whole.
    const byRules = mergeSpans(found.filter((f) => f.rule !== LITERAL));
    for (const span of byRules) count(span.rule);
    for (const v of found) if (v.rule === LITERAL && !covered(byRules, v)) count(LITERAL);
    return { text: replaceSpans(text, mergeSpans(found), (span) => placeholder(span.rule)), counts };
  }

  /**
   * Where the secrets of `text` are: ordered, disjoint spans of the text, each named by the rule that
   * found it (overlapping finds are joined under the first one's rule). Counts nothing.
   */
  secretSpans(text: string): Array<Span & { rule: string }> {
    return mergeSpans(this.findings(text));
  }

  /** Every find of every pass over the text's views, in the text's offsets (they may overlap). */
  private findings(text: string): Array<Span & { rule: string }> {
    if (text.length < 8) return [];
    const found: Array<Span & { rule: string }> = [];
    const escaped = unescapedView(text);
    const base = escaped?.text ?? text;
    const toSource = escaped ? (v: number) => escaped.toSource(v) : (v: number) => v;
    const hideInBase = (rule: string, start: number, end: number) => found.push({ rule, start: toSource(start), end: toSource(end) });
    this.passes(base, hideInBase);
    const stripped = ansiStrippedView(base);
    if (stripped) {
      const hideInStripped = (rule: string, start: number, end: number) =>
        found.push({ rule, start: toSource(stripped.toSource(start)), end: toSource(stripped.toSource(end, true)) });
      this.passes(stripped.text, hideInStripped);
      for (const s of this.cutPieces.spans(stripped.text)) hideInStripped(s.rule, s.start, s.end);
    }
    for (const s of this.cutPieces.spans(base)) hideInBase(s.rule, s.start, s.end);
    // A value with a backslash of its own is found in the text as it is (the view decodes it).
    if (escaped && this.backslashLiterals) replaceMatches(text, this.backslashLiterals, (start, end) => (found.push({ rule: LITERAL, start, end }), ""));
    return found;
  }

  /**
   * Every pass over one view of a text, each secret found at [start, end) of it given to `hide`: key
   * blocks and the user's rules in order, each over what the ones before left; the exact values over
   * the whole view; then the added shapes over what none of those hides.
   */
  private passes(text: string, hide: (rule: string, start: number, end: number) => void): void {
    const masking = (rule: string, start: number, end: number) => (hide(rule, start, end), mask(end - start));
    const present = this.anchorScan.present(text);
    let masked = text;
    if (this.keyBlocks && (masked.includes("-----BEGIN ") || masked.includes(BASE64_BEGIN))) {
      masked = replaceSpans(masked, keyBlockSpans(masked), (span) => masking(PRIVATE_KEY, span.start, span.end));
    }
    masked = runRules(masked, this.compiled, present, masking);
    // The exact values in the whole view: a match of another rule that cuts into one cannot keep the
    // rest of it from being hidden (the union of both is). Then masked for the added shapes.
    if (this.literalRule) {
      const values: Span[] = [];
      replaceMatches(text, this.literalRule, (start, end) => (values.push({ start, end }), ""));
      if (values.length) masked = replaceSpans(masked, values, (v) => masking(LITERAL, v.start, v.end));
    }
    if (this.compiledAdded.length) runRules(masked, this.compiledAdded, present, masking);
  }

  private addLiteral(value: string): boolean {
    const v = value.length > MAX_LITERAL_LENGTH ? value.slice(0, MAX_LITERAL_LENGTH) : value;
    if (v.length < MIN_LITERAL_LENGTH || this.literals.has(v) || this.literals.size >= MAX_LITERALS) return false;
    // A value inside a placeholder ("redacted", "github-token") would break what was hidden already.
    const names = [...this.rules, ...this.added].map((r) => r.name);
    if ([...names, LITERAL, PRIVATE_KEY].some((name) => placeholder(name).includes(v))) return false;
    this.literals.add(v);
    return true;
  }

  private compile(): void {
    this.anchorScan = new AnchorScan([...this.rules, ...this.added].flatMap((r) => r.anchors ?? []));
    this.cutPieces = new CutPieces(
      [...this.rules, ...this.added].map((r) => ({ name: r.name, anchors: r.anchors ?? [], keyed: Boolean(r.value) || r.source.includes("(?<k>") })),
    );
    const compile = (rule: RedactionRule): CompiledRule => ({
      name: rule.name,
      re: new RegExp(rule.source, "g"),
      ...(rule.anchors ? { anchors: rule.anchors } : {}),
      ...(rule.value ? { value: rule.value } : {}),
    });
    this.compiled = this.rules.map(compile);
    this.compiledAdded = this.added.map(compile);
    if (this.literals.size) {
      // Longest first, so a value that contains another is hidden whole.
      const alternatives = [...this.literals].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.literalRule = { name: LITERAL, re: new RegExp(alternatives.join("|"), "g") };
      const withBackslash = [...this.literals].filter((l) => l.includes("\\")).sort((a, b) => b.length - a.length);
      this.backslashLiterals = withBackslash.length ? { name: LITERAL, re: new RegExp(withBackslash.map(escapeRegExp).join("|"), "g") } : undefined;
    }
  }
}

/** A compiled rule: its expression (global), its anchors, and the value check of a key/value rule. */
interface CompiledRule {
  name: string;
  re: RegExp;
  anchors?: readonly string[];
  value?: ValueRule;
}

/** What hides a secret in the unescaped view: as long as it, never matched by a rule (like a placeholder: `[`, `#`, `]`). */
function mask(length: number): string {
  return length < 2 ? "#".repeat(length) : `[${"#".repeat(length - 2)}]`;
}

/**
 * Each rule of `rules` in order over `text` (skipped when none of its anchors is `present`): what one
 * finds at [start, end) of the text as it stands at that pass is replaced by what `replace` returns.
 * One scan for all anchors is far cheaper than a regular expression that must try every position,
 * and most texts hold none of most anchors.
 */
function runRules(
  text: string,
  rules: readonly CompiledRule[],
  present: (anchor: string) => boolean,
  replace: (rule: string, start: number, end: number) => string,
): string {
  let out = text;
  for (const c of rules) {
    if (c.anchors && !c.anchors.some(present)) continue;
    out = replaceMatches(out, c, (start, end) => replace(c.name, start, end));
  }
  return out;
}

/** Whether `span` lies inside one of the ordered, disjoint `spans` (binary search). */
function covered(spans: readonly Span[], span: Span): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = spans[mid]!;
    if (s.end <= span.start) lo = mid + 1;
    else if (s.start > span.start) hi = mid - 1;
    else return span.end <= s.end;
  }
  return false;
}

/** Spans ordered by start, overlapping ones joined (the first one's rule names the whole). */
function mergeSpans(spans: Array<Span & { rule: string }>): Array<Span & { rule: string }> {
  const merged: Array<Span & { rule: string }> = [];
  for (const s of spans.sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/** `text` with each of the ordered, disjoint `spans` replaced by what `replace` returns for it. */
function replaceSpans<S extends Span>(text: string, spans: readonly S[], replace: (span: S) => string): string {
  if (!spans.length) return text;
  let out = "";
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + replace(s);
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * `text` with every match of one rule replaced, left to right: the hidden part is the match after its
 * kept `k` group, or, for a key/value rule, the value its matcher accepts after the key. A key whose
 * value is refused is passed over by one character; the matcher's memory keeps that linear.
 */
function replaceMatches(text: string, rule: CompiledRule, replace: (start: number, end: number) => string): string {
  const { re, value } = rule;
  const memo = value ? new RunMemo(text, value.chars) : undefined;
  let out = "";
  let at = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const matchEnd = m.index + m[0].length;
    let start: number;
    let end: number;
    if (value) {
      start = matchEnd;
      end = value.match(text, start, memo!);
      if (end < 0) {
        re.lastIndex = m.index + 1;
        continue;
      }
    } else {
      if (matchEnd === m.index) {
        re.lastIndex = matchEnd + 1;
        continue;
      }
      start = m.index + (m.groups?.k?.length ?? 0);
      end = matchEnd;
    }
    out += text.slice(at, start) + replace(start, end);
    at = end;
    re.lastIndex = end;
  }
  return at === 0 && out === "" ? text : out + text.slice(at);
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
