/**
 * The order of the redactor's passes: shapes a config file added (a project may add them) run after
 * every rule of the user's, and the exact values (a server's env) are found in the whole text, so no
 * match of another rule that cuts into a secret keeps the rest of it visible: adding a shape only
 * hides more.
 */
import { describe, expect, it } from "vitest";
import { Redactor, type TokenShape } from "../../../../lib/redact/index.ts";

// Built at run time: no whole secret in the repository's source.
const CREDENTIAL = ["Zq8v", "K2mP9x", "L4nR7tW1yB"].join("");
const TOKEN = ["ghp", "_", "Sh4pe".repeat(7), "Qz7x0"].join("");

const shape = (prefix: string, chars = "A-Za-z", name = "p"): TokenShape => ({ name, prefix, chars, minLength: 1, maxLength: 64 });

describe("adding a shape only hides more", () => {
  it("an added shape that starts before a server's env value leaves the value hidden whole", () => {
    const r = new Redactor({ literals: [CREDENTIAL], addedShapes: [shape('"Z')] });
    const out = r.redact(`cred: "${CREDENTIAL}"`);
    expect(out).not.toContain(CREDENTIAL.slice(2, 10));
    expect(out).not.toContain(CREDENTIAL.slice(-8));
    expect(out).toBe('cred: "[redacted:env-value]"');
  });

  it("an added shape that starts before a built-in rule's token leaves the token hidden whole", () => {
    const r = new Redactor({ addedShapes: [shape("=g", "a-z")] });
    const out = r.redact(`export GH=${TOKEN}`);
    expect(out).not.toContain(TOKEN.slice(4, 20));
    expect(out).toBe("export GH=[redacted:github-token]");
  });

  it("the same inside JSON escaped twice", () => {
    const r = new Redactor({ literals: [CREDENTIAL], addedShapes: [shape('"Z')] });
    const text = JSON.stringify(JSON.stringify({ cred: CREDENTIAL }));
    const out = r.redact(text);
    expect(out).not.toContain(CREDENTIAL.slice(-8));
    expect(JSON.parse(JSON.parse(out))).toEqual({ cred: "[redacted:env-value]" });
  });

  it("the user's own shape that cuts into an env value: both are hidden (the union)", () => {
    const r = new Redactor({ literals: [CREDENTIAL], shapes: [shape("x:Z", "A-Za-z", "mine")] });
    const out = r.redact(`x:${CREDENTIAL} end`);
    expect(out).not.toContain(CREDENTIAL.slice(-8));
    expect(out).not.toContain(CREDENTIAL.slice(2, 10));
    expect(out).toBe("[redacted:mine] end");
  });

  it("a built-in match that cuts into an env value: both are hidden, the secret counted once", () => {
    // The env value is a token plus more: github-token hides the token, the rest of the value too.
    const value = `${TOKEN}-and-more`;
    const r = new Redactor({ literals: [value] });
    const report = r.redactWithReport(`value ${value} end`);
    expect(report.text).toBe("value [redacted:github-token] end");
    expect(report.counts).toEqual({ "github-token": 1, "env-value": 1 });
    expect(new Redactor({ literals: [TOKEN] }).redactWithReport(`t ${TOKEN} e`).counts).toEqual({ "github-token": 1 });
  });

  it("what is hidden without added shapes stays hidden with any of 62 blind ones", () => {
    const firsts = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"];
    const added = firsts.map((c, i) => shape(`"${c}`, "A-Za-z", `p${i}`));
    const text = `a "${CREDENTIAL}" b "${TOKEN}" c`;
    const out = new Redactor({ literals: [CREDENTIAL], addedShapes: added }).redact(text);
    for (const secret of [CREDENTIAL, TOKEN]) for (let i = 0; i + 6 <= secret.length; i++) expect(out).not.toContain(secret.slice(i, i + 6));
  });
});
