/**
 * Terminal escape sequences (colour codes, erase-line, OSC) never hide a secret: `grep --color=always`
 * puts `ESC[01;31mESC[K` right before what it highlights, a CI log puts `ESC[33m` between
 * `GITHUB_TOKEN=` and the token, and JSON keeps them escaped (`\u001b[`, `\x1b[`, `\033[`). A rule
 * never counts a hit that hides only the escape character.
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";
import { ansiStrippedView } from "../../../../lib/redact/terminal.ts";

const r = new Redactor();
const T = ["ghp", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"].join("_");
const E = "\u001b";

const cases: Array<[label: string, text: string, secret: string]> = [
  ["grep --color before the token", `config.json:2:  "token": "${E}[01;31m${E}[K${T}${E}[m${E}[K"`, T],
  ["grep --color inside the token", `"token": "ghp_${E}[01;31m${E}[K${T.slice(4, 20)}${E}[m${E}[K${T.slice(20)}"`, T.slice(20)],
  ["colour between the name and the token", `export GITHUB_TOKEN=${E}[33m${T}${E}[0m`, T],
  ["colour between the name and a password", `export DB_PASSWORD=${E}[33mhunter2hunter2X${E}[0m`, "hunter2hunter2X"],
  ["JSON-escaped \\u001b", JSON.stringify(`${E}[32m${T}${E}[0m`), T],
  ["\\x1b", `TOKEN=\\x1b[31m${T}\\x1b[0m`, T],
  ["\\033", `TOKEN=\\033[31m${T}\\033[0m`, T],
  ["\\e[", `printf 'TOKEN=\\e[31m${T}\\e[0m'`, T],
  ["OSC 8 hyperlink", `${E}]8;;https://deploy:S3cretPassw0rd@git.corp.net/r${E}\\link${E}]8;;${E}\\`, "S3cretPassw0rd"],
  ["charset designation", `${E}(B${E}[mAuthorization: Bearer ${E}[1m${T.slice(4)}${E}(B${E}[m`, T.slice(4)],
  ["escaped twice", JSON.stringify(JSON.stringify(`GITHUB_TOKEN=${E}[33m${T}${E}[0m`)), T],
  // 8-bit C1 introducers: U+009B is CSI, U+009D OSC, U+0090 DCS, U+009C ST, U+009F APC.
  ["8-bit CSI before the token", `c1 \u009b33m${T}\u009b0m`, T],
  ["8-bit CSI between the name and the token", `export GITHUB_TOKEN=\u009b1;31m${T}\u009bm`, T],
  ["8-bit CSI inside the token", `x ${T.slice(0, 10)}\u009b1m${T.slice(10)}\u009b0m`, T.slice(10)],
  ["8-bit DCS and ST around the token", `key \u00901$r0m\u009c${T}`, T],
  ["8-bit APC inside the token", `x ${T.slice(0, 12)}\u009fGf=1\u009c${T.slice(12)}`, T.slice(12)],
  ["8-bit OSC hyperlink with a password", `\u009d8;;https://deploy:S3cretPassw0rd@git.corp.net/r\u009clink\u009d8;;\u009c`, "S3cretPassw0rd"],
];

describe("terminal escape sequences", () => {
  it.each(cases)("hide nothing: %s", (_label, text, secret) => {
    const out = r.redact(text);
    expect(out).toContain("[redacted:");
    expect(out).not.toContain(secret);
    // A token is hidden whole: no 12 characters of it are left anywhere.
    for (let i = 0; i + 12 <= secret.length; i++) expect(out).not.toContain(secret.slice(i, i + 12));
  });

  it("keeps the colour codes around what it hides, and text without secrets as it is", () => {
    expect(r.redact(`export GITHUB_TOKEN=${E}[33m${T}${E}[0m done`)).toBe(`export GITHUB_TOKEN=${E}[33m[redacted:github-token]${E}[0m done`);
    const plain = `${E}[32mPASS${E}[0m src/a.test.ts ${E}[2m(3 tests)${E}[22m`;
    expect(r.redact(plain)).toBe(plain);
  });

  it("never counts a hit that hides only the escape character", () => {
    const { text, counts } = r.redactWithReport(`GITHUB_TOKEN=${E}[33m`);
    expect(text).toBe(`GITHUB_TOKEN=${E}[33m`);
    expect(counts).toEqual({});
    const report = r.redactWithReport(`export DB_PASSWORD=${E}`);
    expect(report.counts).toEqual({});
  });

  it("counts one secret once, though two views find it", () => {
    expect(r.redactWithReport(`x ${T} ${E}[0m`).counts).toEqual({ "github-token": 1 });
  });
});

/** What a terminal or `less` shows of a text: each character before a backspace struck over. */
const struck = (text: string) => {
  let out = "";
  for (const c of text) out = c === "\b" ? out.slice(0, -1) : out + c;
  return out;
};
const bold = (s: string) => [...s].map((c) => `${c}\b${c}`).join("");
const underline = (s: string) => [...s].map((c) => `_\b${c}`).join("");

describe("backspace overstrikes (nroff/man bold and underline)", () => {
  it.each([
    ["bold token", `bold: ${bold(T)}\n`],
    ["underlined token", `u: ${underline(T)}\n`],
    ["bold and underlined token", `bu: ${[...T].map((c) => `_\b${c}\b${c}`).join("")}\n`],
    ["bold name, plain token", `${bold("GITHUB_TOKEN")}=${T}`],
    ["bold password after its name", `export DB_PASSWORD=${bold("hunter2hunter2X")}`],
    ["backspaces over a decoy inside the token", `x ${T.slice(0, 10)}abc\b\b\b${T.slice(10)}`],
    ["overstrike in JSON", JSON.stringify(`man: ${bold(T)}`)],
    ["overstrike after a colour code", `\u001b[1m${bold(T)}\u001b[0m`],
  ])("hides the whole token: %s", (_label, text) => {
    const out = r.redact(text);
    expect(out).toContain("[redacted:");
    const shown = struck(text.startsWith('"') ? JSON.parse(out) : out);
    for (let i = 0; i + 8 <= T.length; i++) expect(shown).not.toContain(T.slice(i, i + 8));
    if (!text.startsWith('"')) for (let i = 0; i + 8 <= 15; i++) expect(shown).not.toContain("hunter2hunter2X".slice(i, i + 8));
  });

  it("keeps a man page without secrets as it is", () => {
    const page = `${bold("NAME")}\n       ls - list directory contents\n${underline("FILE")} ${bold("--color")}\n`;
    expect(r.redact(page)).toBe(page);
  });
});

describe("format characters a terminal draws as nothing", () => {
  it.each([
    ["zero-width space", "\u200b"],
    ["zero-width non-joiner", "\u200c"],
    ["zero-width joiner", "\u200d"],
    ["word joiner", "\u2060"],
    ["byte order mark", "\ufeff"],
    ["soft hyphen", "\u00ad"],
  ])("a %s inside a token hides nothing", (_label, mark) => {
    const text = `zw ${T.slice(0, 10)}${mark}${T.slice(10)}\n`;
    const out = r.redact(text);
    expect(out).toBe("zw [redacted:github-token]\n");
  });

  it("a zero-width space between a name and its value, and one after each character", () => {
    expect(r.redact(`export DB_PASSWORD=\u200bhunter2hunter2X`)).not.toContain("hunter2");
    expect(r.redact([...T].join("\u200b"))).toBe("[redacted:github-token]");
  });
});

describe("ansiStrippedView", () => {
  it("removes CSI, two-character and designation sequences and maps offsets back", () => {
    const text = `a${E}[01;31m${E}[Kb${E}(Bc${E}7d`;
    const view = ansiStrippedView(text)!;
    expect(view.text).toBe("abcd");
    expect(view.toSource(0)).toBe(0);
    expect(text[view.toSource(1)]).toBe("b");
    expect(text[view.toSource(2)]).toBe("c");
    expect(text[view.toSource(3)]).toBe("d");
    expect(view.toSource(4)).toBe(text.length);
    // An end offset maps before the sequences that follow it.
    expect(view.toSource(1, true)).toBe(1);
  });

  it("removes 8-bit CSI sequences and other C1 controls like their ESC forms", () => {
    const text = "a\u009b01;31mb\u009dc\u009cd\u0090e";
    const view = ansiStrippedView(text)!;
    expect(view.text).toBe("abcde");
    expect(text[view.toSource(1)]).toBe("b");
    expect(text[view.toSource(4)]).toBe("e");
  });

  it("removes only the introducer of an OSC (its text is scanned) and is undefined without ESC", () => {
    expect(ansiStrippedView(`${E}]0;title\u0007x`)!.text).toBe("0;title\u0007x");
    expect(ansiStrippedView("no escapes")).toBeUndefined();
  });
});
