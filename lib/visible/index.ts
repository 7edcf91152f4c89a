/**
 * Untrusted text shown to a person (a config key a repository wrote, an MCP server's name, a stored
 * tool output in `pi-governor search`) must not drive the terminal: an escape sequence in it could
 * set the window title, move the cursor over earlier lines, or (OSC 52) write the user's clipboard.
 * These helpers show such characters as visible escapes (`\u001b`, `\u202e`) instead of sending them.
 */

/**
 * Characters shown as their escape wherever they are: C0 controls (newline and tab only in
 * {@link visible}), DEL, C1 controls (U+009B is a one-character CSI for some terminals), line and
 * paragraph separators, the bidirectional marks, embeddings, overrides and isolates that reorder
 * what a line shows ("Trojan Source"), and characters that show nothing or a blank that is not the
 * ASCII space: zero-width spaces and joiners, the byte order mark, the soft hyphen, word joiners and
 * invisible operators, Hangul and braille fillers, variation selectors (U+FE0F right after a
 * non-ASCII character, an emoji's normal form, stays), tag characters (which spell ASCII
 * invisibly), interlinear annotations, lone surrogates, and the no-break, em, ideographic and other
 * spaces (a no-break space joins two words into one argument).
 */
const HIDDEN = new RegExp(
  // Built from a string: the class lists combining marks (U+034F, variation selectors) on their own.
  "^[\\u0080-\\u009f\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202f" +
    "\\u205f-\\u206f\\u2800\\u3000\\u3164\\ufe00-\\ufe0e\\ufeff\\uffa0\\ufff9-\\ufffb\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}" +
    "\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}\\ud800-\\udfff]$",
  "u",
);
/** A letter, mark or digit of any script: what words are made of. */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/** Scripts with letters that look like Latin ones. */
const LOOKALIKE_SCRIPT = /^[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}]$/u;
/** Letters that read as ASCII wherever they are: fullwidth Latin letters and digits, mathematical alphanumerics, a few IPA letters. */
const ALWAYS_LOOKALIKE = /^[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u{1d400}-\u{1d7ff}\u0251\u0261\u0269\u01c0]$/u;
/** Cyrillic, Greek and Armenian letters that look like a Latin one: a word made only of them (and marks) reads as ASCII ("аррӏе"). */
const LATIN_LOOKALIKES = new Set("АВЕЅІЈКМНОРСТУХҮӀԀԚԜҺаеорсухѕіјӏԁһԛԝүΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορτυχօսհո");
const MARK = /^\p{M}$/u;

/** What a non-ASCII code point is, as bits. */
const HIDE = 1;
const WORD = 2;
const SCRIPT = 4;
const ALWAYS = 8;
const LATIN = 16;
const IS_MARK = 32;

/** Bits by code point, filled as characters are met (each regex runs once per distinct character): BMP in a table (bit 7: known), the rest in a bounded map. */
const bmpKinds = new Uint8Array(0x10000);
const KNOWN = 128;
const astralKinds = new Map<number, number>();
const MAX_ASTRAL_KINDS = 65_536;

function kindOf(cp: number): number {
  if (cp < 0x10000) {
    const known = bmpKinds[cp]!;
    if (known) return known & ~KNOWN;
  } else {
    const known = astralKinds.get(cp);
    if (known !== undefined) return known;
  }
  const ch = String.fromCodePoint(cp);
  let kind = 0;
  if (HIDDEN.test(ch)) kind |= HIDE;
  else if (WORD_CHAR.test(ch)) {
    kind |= WORD;
    if (LOOKALIKE_SCRIPT.test(ch)) kind |= SCRIPT;
    if (ALWAYS_LOOKALIKE.test(ch)) kind |= ALWAYS;
    if (LATIN_LOOKALIKES.has(ch)) kind |= LATIN;
    if (MARK.test(ch)) kind |= IS_MARK;
  }
  if (cp < 0x10000) bmpKinds[cp] = kind | KNOWN;
  else if (astralKinds.size < MAX_ASTRAL_KINDS) astralKinds.set(cp, kind);
  return kind;
}

/** Escapes already written, by code point: a flood of one character costs one escape. */
const escapes = new Map<number, string>();

/** One code point as its JSON escape: `\n`, `\u200b`, `\udb40\udc41` (an astral one as its surrogate pair). */
function escapeOf(cp: number): string {
  let out = escapes.get(cp);
  if (out !== undefined) return out;
  if (cp === 10) out = "\\n";
  else if (cp === 9) out = "\\t";
  else if (cp === 13) out = "\\r";
  else {
    // JSON's spelling, so JSON output stays valid JSON and reads the same as text output.
    const units = String.fromCodePoint(cp);
    out = "";
    for (let i = 0; i < units.length; i++) out += `\\u${units.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  if (escapes.size < 4_096) escapes.set(cp, out);
  return out;
}

/** Anything but printable ASCII (and, for multi-line text, newlines and tabs). */
const NOT_PLAIN = /[^\x20-\x7e]/;
const NOT_PLAIN_LINES = /[^\x20-\x7e\n\t]/;
const isAsciiAlnum = (cp: number) => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);

/**
 * `text` with every character of {@link HIDDEN} escaped, and the look-alike letters of each word
 * (a run of letters, marks and digits): every Cyrillic, Greek, Armenian or Cherokee letter of a word
 * that also has ASCII letters or digits ("gіthub" with a Cyrillic і), every letter of a word made
 * only of Latin look-alikes ("аррӏе"), and fullwidth or mathematical letters anywhere. Words of those
 * scripts that do not read as Latin ("привет", "καλημέρα") stay. One pass, linear in the text.
 */
function shown(text: string, keepLines: boolean): string {
  // Plain printable ASCII (the common case) has nothing to show differently.
  if (!(keepLines ? NOT_PLAIN_LINES : NOT_PLAIN).test(text)) return text;
  let out = "";
  let copied = 0;
  let wordStart = -1;
  let wordAscii = false;
  let wordScript = false;
  let wordAllLatin = true;
  let wordNonAscii = false;
  let previous = 0;
  const escapeAt = (at: number, cp: number) => {
    if (at > copied) out += text.slice(copied, at);
    out += escapeOf(cp);
    copied = at + (cp > 0xffff ? 2 : 1);
  };
  const endWord = (end: number) => {
    if (wordStart < 0) return;
    if (wordNonAscii) {
      const mask = wordAscii && wordScript ? SCRIPT | ALWAYS : wordAllLatin ? LATIN | ALWAYS : ALWAYS;
      for (let i = wordStart; i < end; ) {
        const cp = text.codePointAt(i)!;
        const length = cp > 0xffff ? 2 : 1;
        if (cp >= 0x80 && kindOf(cp) & mask) escapeAt(i, cp);
        i += length;
      }
    }
    wordStart = -1;
  };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const length = cp > 0xffff ? 2 : 1;
    let hide: boolean;
    let word: boolean;
    if (cp < 0x80) {
      hide = cp < 0x20 ? !(keepLines && (cp === 10 || cp === 9)) : cp === 0x7f;
      word = isAsciiAlnum(cp);
    } else {
      const kind = kindOf(cp);
      hide = (kind & HIDE) !== 0 || (cp === 0xfe0f && previous < 0x80);
      word = !hide && (kind & WORD) !== 0;
    }
    if (word) {
      if (wordStart < 0) {
        wordStart = i;
        wordAscii = wordScript = wordNonAscii = false;
        wordAllLatin = true;
      }
      if (cp < 0x80) {
        wordAscii = true;
        wordAllLatin = false;
      } else {
        const kind = kindOf(cp);
        wordNonAscii = true;
        if (kind & SCRIPT) wordScript = true;
        if (!(kind & (LATIN | IS_MARK))) wordAllLatin = false;
      }
    } else {
      endWord(i);
      if (hide) escapeAt(i, cp);
    }
    previous = cp;
    i += length;
  }
  endWord(text.length);
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * `text` for one line of human-facing output: every control character (newlines and tabs included,
 * so a value cannot forge a line of its own) shown as an escape, e.g. ESC as `\u001b`; so are
 * characters that show nothing (U+200B, tag characters), spaces that are not the ASCII space, and
 * letters that pass for Latin ones (a Cyrillic і in "github"). Other text, non-Latin scripts and
 * emoji included, is unchanged.
 */
export function visible(text: string): string {
  return shown(text, false);
}

/**
 * `text` for multi-line human-facing output: like {@link visible}, but newlines and tabs stay (a
 * report, a snippet of a stored output). A carriage return is shown, so no line can overwrite another.
 */
export function visibleLines(text: string): string {
  return shown(text, true);
}
