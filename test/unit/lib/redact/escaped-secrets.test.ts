/**
 * Secrets inside escaped text: JSON in JSON (`kubectl get secret -o json` keeps the applied document,
 * private key and all, as one escaped string), escaped again by whatever prints it, to any depth;
 * `\uXXXX` spellings; a token right after an escaped line break. Every secret is hidden, and the
 * output stays valid JSON at every depth (a placeholder needs no escaping).
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";

const r = new Redactor();

// Built at run time so no complete secret sits in the repository's source.
const rnd = (chars: string, n: number, seed = 7) => Array.from({ length: n }, (_, i) => chars[(i * 31 + seed * 17 + ((i * i) % 13)) % chars.length]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64 = `${ALNUM}+/`;

const AWS_SECRET = rnd(B64, 40, 3);
const KEY_LINES = [rnd(B64, 64, 1), rnd(B64, 64, 2), rnd(B64, 64, 4), rnd(B64, 20, 5)];
const PEM = ["-----BEGIN RSA PRIVATE KEY-----", ...KEY_LINES, "-----END RSA PRIVATE KEY-----", ""].join("\n");
const GH_TOKEN = `ghp_${rnd(ALNUM, 36, 9)}`;
const BEARER = rnd(ALNUM, 40, 11);

/** What `kubectl get secret -o json` prints for a secret created with `kubectl apply`. */
function kubectlSecret(): string {
  const applied = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "app", namespace: "default" },
    type: "Opaque",
    stringData: { AWS_SECRET_ACCESS_KEY: AWS_SECRET, "tls.key": PEM },
  };
  return JSON.stringify(
    {
      apiVersion: "v1",
      data: { AWS_SECRET_ACCESS_KEY: Buffer.from(AWS_SECRET).toString("base64"), "tls.key": Buffer.from(PEM).toString("base64") },
      kind: "Secret",
      metadata: {
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": `${JSON.stringify(applied)}\n` },
        name: "app",
        namespace: "default",
      },
      type: "Opaque",
    },
    null,
    4,
  );
}

/** Every piece of a secret that must not survive, in plain and base64 form. */
const SECRET_PIECES = [
  AWS_SECRET,
  ...KEY_LINES.slice(0, 3),
  Buffer.from(AWS_SECRET).toString("base64").slice(0, 24),
  Buffer.from(PEM).toString("base64").slice(40, 120),
];

/** `text` JSON-escaped `depth` more times (as a string inside a JSON document each time). */
function escapeDepth(text: string, depth: number): string {
  let out = text;
  for (let i = 0; i < depth; i++) out = JSON.stringify({ output: out });
  return out;
}

/** The inverse of {@link escapeDepth}. */
function unescapeDepth(text: string, depth: number): string {
  let out = text;
  for (let i = 0; i < depth; i++) out = (JSON.parse(out) as { output: string }).output;
  return out;
}

/** Fully decoded text, also inside the annotation's JSON string, for the "nothing survives" check. */
function everyForm(text: string): string {
  return [text, JSON.stringify(text), text.replace(/\\+n/g, "\n").replace(/\\+"/g, '"')].join("\n");
}

describe("secrets inside escaped JSON", () => {
  it("hides the private key, the AWS secret and their base64 in kubectl get secret -o json", () => {
    const out = r.redact(kubectlSecret());
    for (const piece of SECRET_PIECES) expect(everyForm(out), piece).not.toContain(piece);
    const parsed = JSON.parse(out) as { metadata: { annotations: Record<string, string> } };
    const applied = JSON.parse(parsed.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]!) as { stringData: Record<string, string> };
    expect(applied.stringData.AWS_SECRET_ACCESS_KEY).toBe("[redacted:aws-secret-key]");
    expect(applied.stringData["tls.key"]).toContain("[redacted:private-key]");
  });

  for (const depth of [1, 2, 3, 5, 8]) {
    it(`hides them when the whole output is JSON-escaped ${depth} more time(s), and keeps it valid JSON`, () => {
      const text = escapeDepth(kubectlSecret(), depth);
      const out = r.redact(text);
      expect(out).toContain("[redacted:");
      for (const piece of SECRET_PIECES) expect(everyForm(out), `${piece} at depth ${depth}`).not.toContain(piece);
      const inner = unescapeDepth(out, depth);
      expect(() => JSON.parse(inner)).not.toThrow();
      for (const piece of SECRET_PIECES) expect(everyForm(inner)).not.toContain(piece);
    });
  }

  it("hides a key block whose dashes and line breaks are \\u escapes, at depth one and two", () => {
    const escaped = PEM.replace(/-/g, "\\u002d").replace(/\n/g, "\\u000a");
    for (const text of [`{"key":"${escaped}"}`, JSON.stringify({ log: `{"key":"${escaped}"}` })]) {
      const out = r.redact(text);
      expect(out).toContain("[redacted:private-key]");
      for (const line of KEY_LINES.slice(0, 3)) expect(out).not.toContain(line);
    }
  });

  it("hides a key block written with octal escapes (\\055 for each dash, \\012 for each line break)", () => {
    const octal = PEM.replace(/-/g, "\\055").replace(/\n/g, "\\012");
    const out = r.redact(`b'${octal}'`);
    expect(out).toContain("[redacted:private-key]");
    for (const line of KEY_LINES.slice(0, 3)) expect(out).not.toContain(line);
  });

  it("hides a token right after an escaped line break or tab, at any depth", () => {
    for (const depth of [1, 2, 4]) {
      const out = r.redact(escapeDepth(`login ok\n${GH_TOKEN}\tand\n${GH_TOKEN}`, depth));
      expect(out).not.toContain(GH_TOKEN.slice(4));
      expect(unescapeDepth(out, depth)).toBe("login ok\n[redacted:github-token]\tand\n[redacted:github-token]");
    }
  });

  it("hides headers, assignments and URL passwords whose quotes are escaped", () => {
    const doc = {
      request: { headers: { Authorization: `Bearer ${BEARER}` }, url: "postgres://admin:S3cr3t!x@db.internal:5432/app" },
      env: "GITHUB_TOKEN=abc123xyz987",
      json: JSON.stringify({ DB_PASSWORD: "hunter2-zz9", API_KEY: "k3y-value-77" }),
    };
    for (const depth of [1, 2, 3]) {
      const out = r.redact(escapeDepth(JSON.stringify(doc), depth));
      for (const secret of [BEARER, "S3cr3t!x", "abc123xyz987", "hunter2-zz9", "k3y-value-77"]) expect(out, `${secret} at ${depth}`).not.toContain(secret);
      expect(() => JSON.parse(unescapeDepth(out, depth))).not.toThrow();
    }
  });

  it("hides an env value wherever it is escaped, and one that holds a backslash as printed", () => {
    const lit = new Redactor({ literals: ['pa"ss\\word-42', "plain-env-value-9"] });
    const out = lit.redact(`${JSON.stringify({ a: 'pa"ss\\word-42', b: JSON.stringify({ c: "plain-env-value-9" }) })} raw: pa"ss\\word-42`);
    expect(out).not.toContain("plain-env-value-9");
    expect(out).not.toContain("word-42");
  });

  it("leaves escaped code alone: regular expressions, Windows paths, escaped quotes", () => {
    for (const text of [
      String.raw`const re = /\bghp_[A-Za-z0-9]{36}\b/;`,
      String.raw`"C:\\new\\tools\\bin\\node.exe"`,
      String.raw`console.log("value: \"" + name + "\"\n");`,
      String.raw`"message": "expected \"Authorization\" header\n"`,
      String.raw`{"cmd":"echo \"API_KEY=$API_KEY\""}`,
    ])
      expect(r.redact(text)).toBe(text);
  });

  it("is a fixed point on what it returns", () => {
    const once = r.redact(escapeDepth(kubectlSecret(), 3));
    expect(r.redact(once)).toBe(once);
  });
});
