/**
 * The adversarial corpus of `npm run bench redact`: inputs built to make each redaction rule as slow
 * as it can be. For every rule, from its own anchors: floods of each anchor with no separator, with
 * each separator a rule accepts after it (`=`, `:`, `": "`, a space), and followed by one long run of
 * token characters; then per-rule worst cases (values just too long or just too short to match, a
 * header's value that never ends, key blocks without END); then what every rule meets: long runs of
 * each token alphabet, backslash and escape floods, deep nesting and JSON escaped to any depth.
 *
 * Each item is `size` characters (ASCII, so as many bytes). Generated, never stored: no whole
 * secret sits in the repository.
 */
import { BUILTIN_RULES } from "../../lib/redact/index.ts";

/** One input of the corpus. */
export interface CorpusItem {
  /** What it is, e.g. `authorization-header: "uthorization:" flood`. */
  label: string;
  text: string;
}

/** `unit` repeated to exactly `size` characters. */
export function flood(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** A deterministic pseudo-random string of `n` characters from `chars`. */
export function pseudoRandom(chars: string, n: number, seed = 1): string {
  let x = seed >>> 0 || 1;
  let out = "";
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += chars[(x >>> 0) % chars.length];
  }
  return out;
}

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const B64 = `${ALNUM}+/`;

/** The texts a rule matches on, lower and upper case spellings of case-insensitive ones included. */
function anchorsOf(rule: { anchors?: readonly string[] }): string[] {
  return [...new Set(rule.anchors ?? [])];
}

/** Floods built from one anchor: no separator, each separator a rule takes after a name, and a long run after it. */
function anchorFloods(anchor: string, size: number): Array<[string, string]> {
  return [
    [`"${anchor}" flood`, flood(anchor, size)],
    [`"${anchor}=" flood`, flood(`${anchor}=`, size)],
    [`"${anchor}:" flood`, flood(`${anchor}:`, size)],
    [`"${anchor}": " flood`, flood(`"${anchor}": "`, size)],
    [`"${anchor} " flood`, flood(`${anchor} `, size)],
    [`"${anchor}" + token run`, `${anchor}${flood("aB3", size - anchor.length)}`],
    [`"${anchor}a1" flood`, flood(`${anchor}a1`, size)],
  ];
}

/** Worst cases that depend on what a rule needs after its anchor. */
function ruleCases(size: number): Array<[string, string]> {
  const run = (n: number, chars = ALNUM, seed = 1) => pseudoRandom(chars, n, seed);
  return [
    // Prefix + a run one longer than the rule allows, again and again (each attempt scans to the end and fails).
    ["ghp_ + 252 alnum, repeated", flood(`ghp_${run(252)} `, size)],
    ["github_pat_ + 252, repeated", flood(`github_pat_${run(252)} `, size)],
    ["ghs_1_a. chains, no end", flood(" ghs_1_a.", size)],
    ["ghs_1_ + 10001 run, repeated", flood(` ghs_1_${run(500)}.${run(10001)}`, size)],
    ["ya29. + 2049, repeated", flood(`ya29.${run(2049)} `, size)],
    ["AKIA + 17, repeated", flood(`AKIA${run(17, UPPER + DIGITS)} `, size)],
    ["AKIA flood, alnum joined", flood("AKIAAKIA", size)],
    ["aws_secret_access_key = + 41, repeated", flood(`aws_secret_access_key = ${run(41, B64)} `, size)],
    ["AWS_SECRET_ACCESS_KEY flood", flood("AWS_SECRET_ACCESS_KEY", size)],
    ["AccountKey= flood", flood("AccountKey=", size)],
    ["=AccountKey= chain", flood("=AccountKey=a", size)],
    ["AccountKey= + 1025, repeated", flood(`;AccountKey=${run(1025, B64)}`, size)],
    ["&sig= flood", flood("&sig=", size)],
    ["?sig= + 513, repeated", flood(`?sig=${run(513)}`, size)],
    ["8Q~ near misses", flood("aaa8Q~", size)],
    ["8Q~ + 30, repeated", flood(` aaa8Q~${run(30)}`, size)],
    ["xoxb- flood", flood("xoxb-", size)],
    ["xoxb-1- flood", flood("xoxb-1-", size)],
    ["xoxb-1- + 256, repeated", flood(` xoxb-1-${run(256)}`, size)],
    ["hooks.slack.com flood", flood("https://hooks.slack.com/services/", size)],
    ["sk-a flood", flood("sk-a", size)],
    ["sk- + 255 letters, repeated", flood(` sk-${run(255, UPPER + LOWER)}`, size)],
    ["sk-ant- + 256, repeated", flood(` sk-ant-${run(256)}`, size)],
    ["eyJ segments", flood("eyJaaaaa.", size)],
    ["eyJ + 4097 run, repeated", flood(` eyJ${run(4097)}.`, size)],
    ["eyJ.eyJ. chains, no end", flood("eyJaaaaa.eyJaaaaa.", size)],
    ["authorization: flood (no spaces)", flood("authorization:", size)],
    ["Authorization: flood", flood("Authorization: ", size)],
    ["Authorization: Bearer flood", flood("Authorization: Bearer ", size)],
    ["Authorization:Bearer%20 flood", flood("Authorization:Bearer%20", size)],
    ["Authorization: + 4097 value, repeated", flood(`Authorization: ${run(4097, UPPER + LOWER)} `, size)],
    ['"authorization":" flood', flood('"authorization":"', size)],
    ["Bearer flood", flood("Bearer ", size)],
    ["Bearer + 4097, repeated", flood(`Bearer ${run(4097)} `, size)],
    ["A_KEY= chain", flood("A_KEY=", size)],
    ["_KEY= flood", flood("_KEY=", size)],
    ["A_KEY=... elided, repeated", flood("A_KEY=x...", size)],
    ["A_TOKEN=$ refs, repeated", flood("A_TOKEN=$", size)],
    ['"A_KEY": " flood', flood('"A_KEY": "', size)],
    ["63 upper then _KEY, repeated", flood(`=${"A".repeat(62)}_KEY`, size)],
    ["upper-case run", flood("A", size)],
    ["UPPER_ run", flood("A_", size)],
    ["scheme://u: no @", flood("a://u:", size)],
    ["scheme://u: + 256, no @", flood(`a://u:${run(256)} `, size)],
    [":// flood", flood("://", size)],
    ["x:// flood", flood("x://", size)],
    ["BEGIN key, no END", flood("-----BEGIN RSA PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAA\n", size)],
    ["BEGIN line flood", flood("-----BEGIN RSA PRIVATE KEY-----", size)],
    ["BEGIN + END flood", flood("-----BEGIN RSA PRIVATE KEY-----\nAAAAAAAAAAAAAAAA\n-----END ", size)],
    ["-----BEGIN flood", flood("-----BEGIN ", size)],
    ["dash run", flood("-", size)],
    ["base64 PEM prefix flood", flood("LS0tLS1CRUdJTi", size)],
  ];
}

/** What every rule meets: alphabets without separators, escapes, nesting. */
function commonCases(size: number): Array<[string, string]> {
  // JSON escaped again and again until it fills the item: the deepest levels are runs of backslashes.
  let nested = '{"AWS_SECRET_ACCESS_KEY":"0123456789abcdefghijABCDEFGHIJ0123456789","k":"-----BEGIN PRIVATE KEY-----\\nAAAAAAAAAAAAAAAAAAAAAAAA\\n"}';
  while (nested.length * 2 < size) nested = JSON.stringify({ d: nested, p: nested.slice(0, 64) });
  return [
    ["lower-case run", flood("a", size)],
    ["digit run", flood("0", size)],
    ["alnum run (random)", pseudoRandom(ALNUM, size, 3)],
    ["base64 run (random)", pseudoRandom(`${B64}=`, size, 5)],
    ["token punctuation run", pseudoRandom(`${ALNUM}_-.~+/=%`, size, 7)],
    ["underscore run", flood("_", size)],
    ["dot run", flood(".", size)],
    ["slash run", flood("/", size)],
    ["equals run", flood("=", size)],
    ["colon run", flood(":", size)],
    ["quote run", flood('"', size)],
    ["backslash run", flood("\\", size)],
    ['\\" flood', flood('\\"', size)],
    ['depth-3 \\\\\\" flood', flood('\\\\\\"', size)],
    ["\\n flood", flood("\\n", size)],
    ["\\\\n flood", flood("\\\\n", size)],
    ["\\u002d flood", flood("\\u002d", size)],
    ["\\\\u002d flood", flood("\\\\u002d", size)],
    ["\\u005c flood", flood("\\u005c", size)],
    ["\\u00 (no hex) flood", flood("\\u00", size)],
    ["\\x2d flood", flood("\\x2d", size)],
    ["deep object nesting", flood('{"a":', size)],
    ["deep array nesting", flood("[", size)],
    ["JSON in JSON, escaped to the deepest level that fits", flood(nested, size)],
    ["mixed separators", pseudoRandom(`${ALNUM} \n\t:=,;"'{}[]()<>@/\\`, size, 11)],
    // Terminal escape sequences: each is taken out of a second view, which every rule scans too.
    ["ESC[ flood", flood("\u001b[", size)],
    ["ESC[0m flood", flood("\u001b[0m", size)],
    ["ESC flood", flood("\u001b", size)],
    ["ESC] flood", flood("\u001b]", size)],
    ["colour code before each token-ish run", flood(`A_KEY=\u001b[33m${pseudoRandom(ALNUM, 40, 13)}\u001b[0m `, size)],
    ["ghp_ with a colour code inside, repeated", flood(`ghp_\u001b[01;31m\u001b[K${pseudoRandom(ALNUM, 36, 17)}\u001b[m `, size)],
    ["\\u001b[ flood (escaped)", flood("\\u001b[", size)],
    ["\\e[ flood", flood("\\e[", size)],
    // 8-bit C1 controls and string sequences (DCS, APC…): taken out of the terminal view like ESC's.
    ["8-bit CSI flood", flood("\u009b", size)],
    ["8-bit CSI 0m flood", flood("\u009b0m", size)],
    ["C1 control flood", pseudoRandom(Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i)).join(""), size, 23)],
    ["ESC P flood (no terminator)", flood("\u001bP", size)],
    ["8-bit APC flood (no terminator)", flood("\u009fx", size)],
    ["APC with a body before each token-ish run", flood(`\u001b_Gf=100;AAAA\u001b\\ghp_${pseudoRandom(ALNUM, 36, 29)} `, size)],
    // Backspace overstrikes: each backspace strikes a character out of the terminal view.
    ["backspace flood", flood("\b", size)],
    ["character-backspace flood", flood("a\b", size)],
    ["bold token flood (g\\bg)", flood(`${[...`ghp_${pseudoRandom(ALNUM, 36, 31)}`].map((c) => `${c}\b${c}`).join("")} `, size)],
    ["underline flood (_\\bX)", flood(`_\b${pseudoRandom(ALNUM, 1, 37)}`, size)],
    ["backspaces at line starts", flood("\n\b\b", size)],
    ["ESC x flood", flood("\u001bx", size)],
    // Format characters a terminal draws as nothing: dropped from the terminal view.
    ["zero-width space flood", flood("\u200b", size)],
    ["zero-width space after each character of a token", flood(`${[...`ghp_${pseudoRandom(ALNUM, 36, 41)}`].join("\u200b")} `, size)],
    ["soft hyphen and BOM flood", flood("a\u00ad\ufeff", size)],
    // Truncation markers: the piece before each is looked at for a rule's anchor (cut-pieces.ts).
    ["grep cut marker flood", flood("a... [truncated]", size)],
    ["grep cut marker flood, no piece", flood("... [truncated]", size)],
    ["ghp_ piece before each marker", flood(`ghp_${pseudoRandom(ALNUM, 30, 19)}... [truncated]\n`, size)],
    ["key before each marker's piece", flood("Authorization: Bearer abc... [truncated] ", size)],
    ["anchors in one long piece before a marker", `${flood("_KEY", size - 20)}... [truncated]`],
    ["middle-cut marker flood", flood("x…12 tokens truncated…", size)],
  ];
}

/**
 * The corpus: per-rule anchor floods (every anchor of every built-in rule, and every literal value
 * given), per-rule worst cases and the common cases, each `size` characters.
 */
export function adversarialCorpus(size: number, literals: readonly string[] = []): CorpusItem[] {
  const items: CorpusItem[] = [];
  // The literal values (env-value): floods of each and of each one's prefix (every attempt compares almost all of it).
  for (const literal of literals) {
    items.push({ label: `env-value: literal flood (${literal.length} chars)`, text: flood(literal, size) });
    items.push({ label: `env-value: literal-minus-one flood (${literal.length} chars)`, text: flood(literal.slice(0, -1), size) });
  }
  const seen = new Set<string>();
  for (const rule of BUILTIN_RULES)
    for (const anchor of anchorsOf(rule))
      for (const [what, text] of anchorFloods(anchor, size)) {
        if (seen.has(what)) continue;
        seen.add(what);
        items.push({ label: `${rule.name}: ${what}`, text });
      }
  for (const [what, text] of ruleCases(size)) items.push({ label: what, text });
  for (const [what, text] of commonCases(size)) items.push({ label: what, text });
  return items;
}
