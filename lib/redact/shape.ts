/**
 * A token shape: a literal prefix followed by one bounded run of characters from a small set. Vendor
 * tokens look like that (`ghp_` + 36 alphanumerics), and the shape compiles to a regular expression
 * that runs in linear time: a match may only start where the character before it is outside the
 * run's set (and not a letter or digit), so no two attempts scan the same run, and each attempt scans
 * at most `maxLength` characters. User-added patterns are shapes for that reason: no regular
 * expression from a config file runs on pi's event loop.
 */

/** One token shape. */
export interface TokenShape {
  /** Rule name, shown in the replacement `[redacted:<name>]`: lower case letters, digits and `-`. */
  name: string;
  /** Literal text every such token starts with (`ghp_`, `acme_live_`), 2 to 40 characters. */
  prefix: string;
  /** The characters after the prefix: single characters and ranges, e.g. `A-Za-z0-9_-` (a `-` last is literal). */
  chars: string;
  /** Fewest characters after the prefix (1 to 1024). */
  minLength: number;
  /** Most characters after the prefix (minLength to 1024); a longer run is not this token. */
  maxLength: number;
}

/** Names: what `[redacted:<name>]` may show. */
export const RULE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
/** Upper bound of a shape's run length, so one attempt scans at most this many characters. */
export const MAX_SHAPE_LENGTH = 1024;

/** Characters a shape's set may contain besides letters and digits. */
const SET_PUNCTUATION = "_-.+/=~";

/** Escapes text for use as a literal in a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/**
 * Parses a character set written as in a class (`A-Za-z0-9_-`) into the class body of a regular
 * expression, or throws saying what is allowed. Only letters, digits, ranges between two letters or
 * two digits, and `_ - . + / = ~` are accepted, so the result can never be more than a set.
 */
export function parseCharSet(chars: string): string {
  if (chars.length === 0 || chars.length > 80) throw new Error("chars must list 1 to 80 characters or ranges, e.g. A-Za-z0-9_-");
  let body = "";
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const isRange = i + 2 < chars.length && chars[i + 1] === "-";
    if (isRange) {
      const end = chars[i + 2]!;
      const sameKind = (/[a-z]/.test(c) && /[a-z]/.test(end)) || (/[A-Z]/.test(c) && /[A-Z]/.test(end)) || (/[0-9]/.test(c) && /[0-9]/.test(end));
      if (!sameKind || end < c) throw new Error(`chars: "${c}-${end}" is not a range of letters or digits (write a-z, A-Z or 0-9)`);
      body += `${c}-${end}`;
      i += 2;
      continue;
    }
    if (/[A-Za-z0-9]/.test(c) || SET_PUNCTUATION.includes(c)) {
      body += escapeRegExp(c);
      continue;
    }
    throw new Error(`chars: "${c}" is not allowed; use letters, digits, ranges (a-z) and ${SET_PUNCTUATION.split("").join(" ")}`);
  }
  return body;
}

/** Checks a shape, throwing a message that names the field; returns it unchanged. */
export function checkShape(shape: TokenShape): TokenShape {
  if (!RULE_NAME_PATTERN.test(shape.name)) throw new Error(`name "${shape.name}": use lower case letters, digits and -, starting with a letter (max 40)`);
  if (shape.prefix.length < 2 || shape.prefix.length > 40) throw new Error(`prefix "${shape.prefix}": use 2 to 40 characters`);
  if (/[\s\u0000-\u001f]/.test(shape.prefix)) throw new Error(`prefix "${shape.prefix}": no spaces or control characters`);
  parseCharSet(shape.chars);
  const { minLength: min, maxLength: max } = shape;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max < min || max > MAX_SHAPE_LENGTH) {
    throw new Error(`minLength ${min} / maxLength ${max}: whole numbers with 1 <= minLength <= maxLength <= ${MAX_SHAPE_LENGTH}`);
  }
  return shape;
}

/**
 * The regular expression source of a shape (no flags needed): the prefix, then minLength..maxLength
 * characters of the set, with no set character (or letter, digit) right before or right after.
 */
export function shapeSource(shape: TokenShape): string {
  const set = parseCharSet(shape.chars);
  // The literal comes first (the engine scans for it quickly); the boundary before it is a lookbehind.
  const prefix = escapeRegExp(shape.prefix);
  return `${prefix}(?<![A-Za-z0-9${set}]${prefix})[${set}]{${shape.minLength},${shape.maxLength}}(?![${set}])`;
}
