/**
 * Private key blocks (PEM, OpenSSH, PGP): from the `-----BEGIN … PRIVATE KEY-----` line to its
 * `-----END … -----` line. Found without a regular expression over the body: one forward search
 * for each BEGIN, and the END search remembers its last answer, so text full of BEGIN lines and no
 * END is still scanned once (linear). A block without an END within {@link MAX_KEY_BLOCK_CHARS}
 * (cut output, a stderr tail) is hidden up to that many characters: the key material is the secret,
 * not its frame.
 *
 * A key block encoded in base64 (a Kubernetes secret's `data`, a CI variable) is found by its
 * encoded start: `LS0tLS1CRUdJTi` is `-----BEGIN` in base64. The first characters are decoded to
 * check it is a private key, then the whole base64 run is hidden (wrapped lines of 64 or 76
 * characters included), bounded like a block.
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
const BODY_RUN = new RegExp(`[A-Za-z0-9+/=\\s\\\\:,.-]{0,${MAX_KEY_BLOCK_CHARS}}`, "y");
const DASHES = "-----";

/** A half-open range [start, end) of text to hide. */
export interface Span {
  start: number;
  end: number;
}

/** `-----BEGIN` in base64, at the start of an encoded key block. */
export const BASE64_BEGIN = "LS0tLS1CRUdJTi";
const BASE64_CHAR = /[A-Za-z0-9+/=]/;
/** A base64-encoded block is hidden up to this many characters (a block's bound, encoded). */
const MAX_BASE64_BLOCK_CHARS = Math.ceil((MAX_KEY_BLOCK_CHARS * 4) / 3) + 256;
const DECODED_HEADER = /^-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY/;

/** The private key blocks in `text`, plain or base64-encoded, in order, not overlapping. */
export function keyBlockSpans(text: string): Span[] {
  const plain = plainKeyBlockSpans(text);
  if (!text.includes(BASE64_BEGIN)) return plain;
  const encoded = base64KeyBlockSpans(text);
  if (!encoded.length) return plain;
  // Merge two ordered lists; a span inside another is dropped.
  const out: Span[] = [];
  for (const s of [...plain, ...encoded].sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** Base64 runs that decode to a private key block's BEGIN line. Linear: each run is scanned once. */
function base64KeyBlockSpans(text: string): Span[] {
  const spans: Span[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(BASE64_BEGIN, from);
    if (start === -1) return spans;
    from = start + BASE64_BEGIN.length;
    if (start > 0 && BASE64_CHAR.test(text[start - 1]!)) continue;
    const limit = Math.min(text.length, start + MAX_BASE64_BLOCK_CHARS);
    let end = start;
    let lineStart = start;
    while (end < limit) {
      const c = text[end]!;
      if (BASE64_CHAR.test(c)) {
        end++;
        continue;
      }
      // A wrapped line (64 or 76 characters) continues on the next one.
      const width = end - lineStart;
      const brk = c === "\n" ? 1 : c === "\r" && text[end + 1] === "\n" ? 2 : 0;
      if (brk && (width === 64 || width === 76) && BASE64_CHAR.test(text[end + brk] ?? "")) {
        end += brk;
        lineStart = end;
        continue;
      }
      break;
    }
    const head = text.slice(start, Math.min(end, start + 64)).replace(/[\r\n]/g, "");
    const decoded = Buffer.from(head.slice(0, head.length - (head.length % 4)), "base64").toString("latin1");
    if (DECODED_HEADER.test(decoded)) spans.push({ start, end });
    from = Math.max(from, end);
  }
}

/** The plain (PEM, OpenSSH, PGP) private key blocks in `text`, in order, not overlapping. */
function plainKeyBlockSpans(text: string): Span[] {
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
      BODY_RUN.lastIndex = stop;
      BODY_RUN.test(text);
      stop = Math.min(limit, BODY_RUN.lastIndex);
    }
    spans.push({ start: begin, end: stop });
    from = stop;
  }
}
