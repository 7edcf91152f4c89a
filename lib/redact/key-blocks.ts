/**
 * Private key blocks (PEM, OpenSSH, PGP): from the `-----BEGIN … PRIVATE KEY-----` line to its
 * `-----END … -----` line. Found without a regular expression over the body: one forward search
 * for each BEGIN, and the END search remembers its last answer, so text full of BEGIN lines and no
 * END is still scanned once (linear). A block without an END within {@link MAX_KEY_BLOCK_CHARS}
 * (cut output, a stderr tail) is hidden up to that many characters: the key material is the secret,
 * not its frame.
 */

/** The longest key block hidden as one: an 8192-bit RSA key in PEM is about 6,500 characters. */
export const MAX_KEY_BLOCK_CHARS = 16_384;

/** `-----BEGIN RSA PRIVATE KEY-----`, `-----BEGIN OPENSSH PRIVATE KEY-----`, `-----BEGIN PGP PRIVATE KEY BLOCK-----`. */
const BEGIN_LINE = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;
const END_MARK = "-----END ";
/**
 * Key material right after the BEGIN line (past line breaks, also JSON's escaped `\n`): 16 base64
 * characters or a PEM header. A BEGIN line in documentation or code, with no key after it, is kept.
 */
const KEY_BODY = /(?:\s|\\[rn]){0,8}(?:[A-Za-z0-9+/=]{16}|Proc-Type:|Comment:|Version:)/y;
/** What a key body may contain, for a block with no END: base64, line breaks and escapes, PEM headers. */
const BODY_CHAR = /[A-Za-z0-9+/=\s\\:,.-]/;
const DASHES = "-----";

/** A half-open range [start, end) of text to hide. */
export interface Span {
  start: number;
  end: number;
}

/** The private key blocks in `text`, in order, not overlapping. */
export function keyBlockSpans(text: string): Span[] {
  const spans: Span[] = [];
  let from = 0;
  // Cache of the END search: the first END at or after `endFrom` is `endAt` (-1: none).
  let endFrom = -1;
  let endAt = -1;
  const nextEnd = (pos: number): number => {
    if (endFrom !== -1 && pos >= endFrom && (endAt === -1 || pos <= endAt)) return endAt;
    endFrom = pos;
    endAt = text.indexOf(END_MARK, pos);
    return endAt;
  };
  for (;;) {
    const begin = text.indexOf("-----BEGIN ", from);
    if (begin === -1) return spans;
    BEGIN_LINE.lastIndex = begin;
    if (!BEGIN_LINE.test(text)) {
      from = begin + 1;
      continue;
    }
    const bodyStart = BEGIN_LINE.lastIndex;
    KEY_BODY.lastIndex = bodyStart;
    if (!KEY_BODY.test(text)) {
      from = bodyStart;
      continue;
    }
    const limit = Math.min(text.length, begin + MAX_KEY_BLOCK_CHARS);
    const end = nextEnd(bodyStart);
    let stop = bodyStart;
    if (end !== -1 && end < limit) {
      const close = text.indexOf(DASHES, end + END_MARK.length);
      stop = close !== -1 && close - end <= 64 ? close + DASHES.length : Math.min(limit, end + END_MARK.length);
    } else {
      // No END within reach (a cut output): hide the key body, as far as it looks like one.
      while (stop < limit && BODY_CHAR.test(text[stop]!)) stop++;
    }
    spans.push({ start: begin, end: stop });
    from = stop;
  }
}
