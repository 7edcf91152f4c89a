/**
 * Untrusted text shown to a person (a config key a repository wrote, an MCP server's name, a stored
 * tool output in `pi-governor search`) must not drive the terminal: an escape sequence in it could
 * set the window title, move the cursor over earlier lines, or (OSC 52) write the user's clipboard.
 * These helpers show such characters as visible escapes (`\u001b`, `\u202e`) instead of sending them.
 */

/**
 * Characters shown as their escape wherever they are: C0 controls (newline and tab only in
 * {@link visible}), DEL, C1 controls (U+009B is a one-character CSI for some terminals), every
 * format character (Cf: the bidirectional marks, embeddings, overrides and isolates that reorder
 * what a line shows, "Trojan Source"; zero-width joiners; interlinear annotations), line and
 * paragraph separators, spaces other than the ASCII space (a no-break space joins two words into
 * one argument), every Default_Ignorable_Code_Point (what a terminal may draw as nothing: zero-width
 * characters, the byte order mark, the soft hyphen, word joiners, Hangul fillers, variation selectors
 * (U+FE0F right after a visible non-ASCII character, an emoji's normal form, stays), tag characters,
 * which spell ASCII invisibly, and the reserved ranges), surrogates without a pair, unassigned code
 * points (no one knows how a terminal draws them), the braille blank, and the combining marks that
 * overlay the character before them (a stroke through a letter: canonical combining class 1).
 */
const HIDDEN = new RegExp(
  "^(?:[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Zs}\\p{Default_Ignorable_Code_Point}\\p{Cs}\\p{Cn}\\u2800]" +
    "|[\\u0334-\\u0338\\u1cd4\\u1ce2-\\u1ce8\\u20d2\\u20d3\\u20d8-\\u20da\\u20e5\\u20e6\\u20ea\\u20eb\\u{10a39}\\u{16af0}-\\u{16af4}\\u{1bc9e}\\u{1d167}-\\u{1d169}])$",
  "u",
);
/** A letter, mark or digit of any script (letter numbers included: Roman numerals): what words are made of. */
const WORD_CHAR = /^[\p{L}\p{M}\p{N}]$/u;
/**
 * Scripts with letters that look like Latin ones: shown escaped in a word that also has ASCII letters
 * or digits ("gⲟⲟgle" with Coptic o). Latin letters that pass for plain ones (dotless ı, small
 * capitals, modifier letters) count as such a script.
 */
const LOOKALIKE_SCRIPT = new RegExp(
  "^[\\p{Script=Cyrillic}\\p{Script=Greek}\\p{Script=Armenian}\\p{Script=Cherokee}\\p{Script=Coptic}\\p{Script=Lisu}" +
    "\\p{Script=Canadian_Aboriginal}\\p{Script=Runic}\\p{Script=Tifinagh}\\p{Script=Old_Italic}\\p{Script=Gothic}\\p{Script=Deseret}" +
    "\\p{Script=Osage}\\p{Script=Vai}\\p{Script=Nko}\\u0131\\u0237\\u1d00-\\u1dbf\\ua730-\\ua7ff]$",
  "u",
);
/**
 * Letters that read as ASCII wherever they are: fullwidth Latin letters and digits, mathematical
 * alphanumerics, Roman numerals (ⅰ ⅽ), letterlike symbols (K Kelvin, Å Ångström, ℓ), a few IPA letters.
 */
const ALWAYS_LOOKALIKE = /^[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\u{1d400}-\u{1d7ff}\u2160-\u2188\u2100-\u214f\u0251\u0261\u0269\u01c0-\u01c3]$/u;
/**
 * Letters of those scripts that look like a Latin one: a word made only of them (and marks) reads as
 * ASCII ("аррӏе", "ꓖꓳꓳꓖꓡꓰ" in Lisu, which is written in Latin capitals' shapes).
 */
const LATIN_LOOKALIKES = new Set("АВЕЅІЈКМНОРСТУХҮӀԀԚԜҺаеорсухѕіјӏԁһԛԝүΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορτυχօսհոⲀⲂⲈⲎⲒⲔⲘⲚⲞⲢⲤⲦⲨⲬⲁⲏⲓⲕⲟⲣⲥⲧⲩⲭıȷᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ");
const LISU_LETTER = /^\p{Script=Lisu}$/u;
/**
 * Punctuation and symbols that pass for ASCII ones, shown escaped wherever they stand
 * (`github.com∕corp` with U+2215 is not a path on github.com; `a; b` with U+037E is one command):
 * - every character whose compatibility form (NFKC) is printable ASCII: fullwidth forms U+FF01 to
 *   U+FF5E, small forms, `․` (U+2024), `‥`, `…`, `‼`, circled and parenthesized letters and digits,
 *   superscripts and subscripts, ligatures (`ﬁ`), modifier letters (`ʰ`), unit symbols (`㎏`);
 * - every dash (Unicode's Dash property: hyphens U+2010 and U+2011, en and em dashes, the minus sign);
 * - {@link CONFUSABLE_PUNCTUATION}.
 */
const COMPAT_ASCII = /^[\x21-\x7e]+$/;
const DASH = /^\p{Dash}$/u;
/** Digits of every script (Unicode's Nd): `g൦൦gle` with Malayalam zeros reads as `g00gle`. */
const DECIMAL_DIGIT = /^\p{Nd}$/u;
/**
 * The punctuation and symbols (general categories P and S) that Unicode's confusables data (UTS #39
 * confusables.txt, version 17.0.0) maps to printable ASCII, less those the rules above already find:
 * U+2215 division slash and U+2044 fraction slash (`/`), U+037E Greek question mark (`;`), U+0589
 * Armenian full stop (`:`), curly quotes, primes, ratio `∶`, `×`, angle quotes `‹ ›`, and the rest.
 */
const CONFUSABLE_PUNCTUATION = new RegExp(
  "^[" +
    "\\u00b4\\u00b8\\u00d7\\u02c2-\\u02c4\\u02d7\\u02db-\\u02dd\\u02f4\\u02f6\\u02f8\\u037e\\u0384\\u055a\\u055d" +
    "\\u0589\\u05c0\\u05c3\\u05f3\\u05f4\\u060d\\u066b\\u066d\\u06d4\\u0701-\\u0704\\u1400\\u166d\\u166e\\u16ec" +
    "\\u16ed\\u1735\\u1803\\u1809\\u1cd3\\u1fbd\\u1fbf\\u1fc0\\u1fef\\u1ffd\\u1ffe\\u2010-\\u2013\\u2016" +
    "\\u2018-\\u201d\\u201f\\u2024-\\u2026\\u2032-\\u2037\\u2039\\u203a\\u203c\\u2041\\u2043\\u2044\\u2047-\\u2049" +
    "\\u204e\\u2053\\u2057\\u205a\\u20a8\\u20b6\\u2100\\u2101\\u2105\\u2106\\u2116\\u2121\\u212e\\u213b\\u2212" +
    "\\u2215-\\u2217\\u221e\\u2223\\u2225\\u2228\\u222a\\u2236\\u223c\\u226a\\u226b\\u22a4\\u22c1\\u22c3\\u22d8" +
    "\\u22d9\\u22ff\\u2373\\u2374\\u237a\\u23fd\\u244a\\u249c-\\u24b5\\u2571\\u2573\\u2768\\u2769\\u276e\\u276f" +
    "\\u2772-\\u2775\\u2795\\u2796\\u27cb\\u27cd\\u27d9\\u292b\\u292c\\u29f5\\u29f8\\u29f9\\u2a20\\u2a2f" +
    "\\u2a74-\\u2a76\\u2aa5\\u2afb\\u2afd\\u2cf9\\u2e28\\u2e29\\u2e40\\u2f02\\u2f03\\u3003\\u3014\\u3015\\u30a0" +
    "\\u31d3\\u31d4\\ua4fe\\ua4ff\\ua60e\\ua789\\ufd3e\\ufd3f\\ufe30\\ufe4d-\\ufe4f\\ufe58\\ufe68\\uff01\\uff02" +
    "\\uff07\\uff1a\\uff3b-\\uff3d\\uff40\\uffe8\\u{10a50}\\u{1d114}\\u{1d206}\\u{1d20d}\\u{1d20f}\\u{1d212}" +
    "\\u{1d213}\\u{1d216}\\u{1d22a}\\u{1d236}\\u{1d237}\\u{1d23a}\\u{1d23b}\\u{1f110}-\\u{1f12a}\\u{1f700}" +
    "\\u{1f707}\\u{1f74c}\\u{1f75c}\\u{1f768}\\u{1f76b}\\u{1f76c}" +
    "]$",
  "u",
);
const MARK = /^\p{M}$/u;

/** What a non-ASCII code point is, as bits. */
const HIDE = 1;
const WORD = 2;
const SCRIPT = 4;
const ALWAYS = 8;
const LATIN = 16;
const IS_MARK = 32;
/** Hangul jamo, which terminals draw as part of a syllable only after the right jamo: leading, vowel, trailing, and syllables. */
const JAMO_L = 64;
const JAMO_V = 128;
const JAMO_T = 256;
const SYLLABLE = 512;
/** In `before` only: the character before was shown as itself (not ASCII, not escaped). */
const SHOWN = 1024;
/** Punctuation or a symbol that passes for an ASCII one: escaped wherever it stands. */
const PUNCT = 2048;

/** Bits by code point, filled as characters are met (each regex runs once per distinct character): BMP in a table (bit 15: known), the rest in a bounded map. */
const bmpKinds = new Uint16Array(0x10000);
const KNOWN = 0x8000;
const astralKinds = new Map<number, number>();
const MAX_ASTRAL_KINDS = 65_536;

function hangulKind(cp: number): number {
  if ((cp >= 0x1100 && cp <= 0x115e) || (cp >= 0xa960 && cp <= 0xa97c)) return JAMO_L;
  if ((cp >= 0x1161 && cp <= 0x11a7) || (cp >= 0xd7b0 && cp <= 0xd7c6)) return JAMO_V;
  if ((cp >= 0x11a8 && cp <= 0x11ff) || (cp >= 0xd7cb && cp <= 0xd7fb)) return JAMO_T;
  if (cp >= 0xac00 && cp <= 0xd7a3) return SYLLABLE;
  return 0;
}

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
    kind |= WORD | hangulKind(cp);
    if (LOOKALIKE_SCRIPT.test(ch)) kind |= SCRIPT;
    if (ALWAYS_LOOKALIKE.test(ch) || DECIMAL_DIGIT.test(ch) || COMPAT_ASCII.test(ch.normalize("NFKC"))) kind |= ALWAYS;
    if (LATIN_LOOKALIKES.has(ch) || LISU_LETTER.test(ch)) kind |= LATIN;
    if (MARK.test(ch)) kind |= IS_MARK;
  } else if (DASH.test(ch) || CONFUSABLE_PUNCTUATION.test(ch) || COMPAT_ASCII.test(ch.normalize("NFKC"))) kind |= PUNCT;
  if (cp < 0x10000) bmpKinds[cp] = kind | KNOWN;
  else if (astralKinds.size < MAX_ASTRAL_KINDS) astralKinds.set(cp, kind);
  return kind;
}

/**
 * Whether a character that draws only on the one before it stands where it is drawn as meant: a
 * combining mark after a visible non-ASCII letter (never after ASCII, where "e" + U+0301 passes for
 * "é" and a mark can disguise a letter a person reads, nor after an escape, a space or punctuation),
 * a Hangul vowel jamo after a leading or vowel jamo, a trailing jamo after a vowel, a trailing jamo
 * or a syllable. Anywhere else a terminal draws it as nothing or over something else.
 */
function attaches(kind: number, before: number): boolean {
  if (kind & JAMO_V) return (before & (JAMO_L | JAMO_V)) !== 0;
  if (kind & JAMO_T) return (before & (JAMO_V | JAMO_T | SYLLABLE)) !== 0;
  return (before & WORD) !== 0;
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
 * `text` with every character of {@link HIDDEN} escaped, every combining mark or Hangul jamo that does
 * not attach to the visible non-ASCII letter before it ({@link attaches}), and the look-alike letters
 * of each word (a run of letters, marks and digits): every letter of a look-alike script in a word
 * that also has ASCII letters or digits ("gіthub" with a Cyrillic і), every letter of a word made only
 * of Latin look-alikes ("аррӏе"), and fullwidth, mathematical, Roman-numeral and letterlike letters
 * and non-ASCII digits anywhere; punctuation and symbols that pass for ASCII ones ({@link PUNCT})
 * anywhere; a mark on an escaped letter is escaped with it. Words of those scripts that do not read
 * as Latin ("привет", "καλημέρα") stay. One pass, linear in the text.
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
  /** The kind of the character before with {@link SHOWN}: 0 after ASCII, an escape or the start. */
  let before = 0;
  const escapeAt = (at: number, cp: number) => {
    if (at > copied) out += text.slice(copied, at);
    out += escapeOf(cp);
    copied = at + (cp > 0xffff ? 2 : 1);
  };
  const endWord = (end: number) => {
    if (wordStart < 0) return;
    if (wordNonAscii) {
      const mask = wordAscii && wordScript ? SCRIPT | ALWAYS : wordAllLatin ? LATIN | ALWAYS : ALWAYS;
      let escaped = false;
      for (let i = wordStart; i < end; ) {
        const cp = text.codePointAt(i)!;
        const length = cp > 0xffff ? 2 : 1;
        if (cp >= 0x80 && i >= copied) {
          const kind = kindOf(cp);
          // A mark goes with the letter it sits on: escaped with it, kept with it.
          escaped = kind & IS_MARK ? escaped : (kind & mask) !== 0;
          if (escaped) escapeAt(i, cp);
        } else escaped = false;
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
    let kind = 0;
    if (cp < 0x80) {
      hide = cp < 0x20 ? !(keepLines && (cp === 10 || cp === 9)) : cp === 0x7f;
      word = isAsciiAlnum(cp);
    } else {
      kind = kindOf(cp);
      // U+FE0F after a character shown as itself is an emoji's normal form (❤️).
      hide = kind & HIDE ? !(cp === 0xfe0f && before & SHOWN) : kind & (IS_MARK | JAMO_V | JAMO_T) ? !attaches(kind, before) : (kind & PUNCT) !== 0;
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
        wordNonAscii = true;
        if (kind & SCRIPT) wordScript = true;
        if (!(kind & (LATIN | IS_MARK))) wordAllLatin = false;
      }
    } else {
      endWord(i);
      if (hide) escapeAt(i, cp);
    }
    before = hide || cp < 0x80 ? 0 : kind | SHOWN;
    i += length;
  }
  endWord(text.length);
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * `text` for one line of human-facing output: every control character (newlines and tabs included,
 * so a value cannot forge a line of its own) shown as an escape, e.g. ESC as `\u001b`; so are
 * characters that show nothing (U+200B, tag characters), spaces that are not the ASCII space,
 * letters that pass for Latin ones (a Cyrillic і in "github"), and punctuation and digits that pass
 * for ASCII ones (a division slash, a Malayalam zero). Other text, non-Latin scripts and emoji
 * included, is unchanged.
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
