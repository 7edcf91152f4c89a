import { describe, expect, it } from "vitest";
import { BUILTIN_RULE_NAMES, Redactor } from "../../../../lib/redact/index.ts";

const r = new Redactor();
const hide = (text: string) => r.redact(text);

// Built at run time so no complete token sits in the repository's source.
const rnd = (chars: string, n: number, seed = 7) => Array.from({ length: n }, (_, i) => chars[(i * 31 + seed * 17 + ((i * i) % 13)) % chars.length]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64 = ALNUM + "+/";

/** One rule: secrets it must hide (as they appear in text) and near misses it must keep. */
const cases: Array<{ rule: string; hits: string[]; misses: string[] }> = [
  {
    rule: "aws-access-key",
    hits: [`AKIA${rnd(UPPER_DIGITS, 16)}`, `key=ASIA${rnd(UPPER_DIGITS, 16, 3)} ok`],
    misses: [`AKIA${rnd(UPPER_DIGITS, 15)}`, `XAKIA${rnd(UPPER_DIGITS, 16)}`, "AKIAIOSFODNN7EXAMPLE", `AKIA${rnd(UPPER_DIGITS, 17)}`],
  },
  {
    rule: "aws-secret-key",
    hits: [`aws_secret_access_key = ${rnd(B64, 40)}`, `AWS_SECRET_ACCESS_KEY: "${rnd(B64, 40, 2)}"`, `:aws_secret_access_key => '${rnd(B64, 40, 4)}'`],
    misses: [`aws_secret_access_key = ${rnd(B64, 39)}`, `secret_access_key_id = ${rnd(B64, 40)}`],
  },
  { rule: "gcp-api-key", hits: [`AIza${rnd(ALNUM + "_-", 35)}`], misses: [`AIza${rnd(ALNUM, 34)}`, `AIza${rnd(ALNUM, 36)}`] },
  { rule: "gcp-oauth-token", hits: [`ya29.${rnd(ALNUM + "_-.", 60)}`], misses: ["ya29.short", `xya29.${rnd(ALNUM, 60)}`] },
  {
    rule: "azure-storage-key",
    hits: [`DefaultEndpointsProtocol=https;AccountName=x;AccountKey=${rnd(B64, 86)}==;EndpointSuffix=core.windows.net`],
    misses: ["AccountKey=short;", "AccountKey=<your-key>"],
  },
  {
    rule: "azure-sas-signature",
    hits: [`https://x.blob.core.windows.net/c?sv=2022-11-02&sig=${rnd(ALNUM, 43)}%3D`],
    misses: ["?sig=abc", "&signature=" + rnd(ALNUM, 43)],
  },
  {
    rule: "azure-client-secret",
    hits: [`${rnd(ALNUM, 3)}8Q~${rnd(ALNUM + "_-.~", 34)}`],
    misses: [`${rnd(ALNUM, 3)}8Q~${rnd(ALNUM, 20)}`, `${rnd(ALNUM, 3)}8Q-${rnd(ALNUM, 34)}`],
  },
  {
    rule: "github-token",
    hits: [
      `ghp_${rnd(ALNUM, 36)}`,
      `gho_${rnd(ALNUM, 36, 1)}`,
      `ghs_${rnd(ALNUM, 36, 2)}`,
      `github_pat_${rnd(ALNUM + "_", 82)}`,
      `"token": "ghu_${rnd(ALNUM, 36, 4)}"`,
      `GITHUB_TOKEN: ghs_12345_eyJ${rnd(ALNUM, 30, 5)}.eyJ${rnd(ALNUM, 60, 6)}.${rnd(ALNUM + "_-", 43, 7)}`,
    ],
    misses: [`ghp_${rnd(ALNUM, 35)}`, `ghp_${rnd(ALNUM, 252)}`, `xghp_${rnd(ALNUM, 36)}`, "ghp_", "github_pat_short"],
  },
  { rule: "gitlab-token", hits: [`glpat-${rnd(ALNUM + "_-", 20)}`, `glrt-${rnd(ALNUM, 24)}`], misses: [`glpat-${rnd(ALNUM, 19)}`, "glpat-xxxxxxxx"] },
  {
    rule: "npm-token",
    hits: [`//registry.npmjs.org/:_authToken=npm_${rnd(ALNUM, 36)}`],
    misses: [`npm_${rnd(ALNUM, 35)}`, "npm_config_cache", "npm_package_version_string_thing"],
  },
  {
    rule: "npmrc-auth",
    hits: [
      "//registry.npmjs.org/:_authToken=8f2c1d3e-aaaa-4bbb-9ccc-0123456789ab",
      `//npm.corp/:_auth=${Buffer.from("me:hunter2pass").toString("base64")}`,
      "//npm.corp/:_password=aHVudGVyMnBhc3M=",
    ],
    misses: ["//registry.npmjs.org/:_authToken=${NPM_TOKEN}", "_authToken=short", "my_authToken=abcdefgh12345"],
  },
  { rule: "docker-token", hits: [`docker login -p dckr_pat_${rnd(ALNUM + "_-", 27)}`], misses: [`dckr_pat_${rnd(ALNUM, 26)}`, `dckr_pat_${rnd(ALNUM, 28)}`] },
  { rule: "sendgrid-key", hits: [`SG.${rnd(ALNUM, 22)}.${rnd(ALNUM, 43, 2)}`], misses: ["SG.short.key", "see SG.2 of the spec"] },
  { rule: "shopify-token", hits: [`shpat_${rnd("abcdef0123456789", 32)}`, `shpss_${rnd(ALNUM, 40)}`], misses: [`shpat_${rnd(ALNUM, 31)}`] },
  {
    rule: "grafana-token",
    hits: [`glsa_${rnd(ALNUM, 32)}_${rnd("abcdef0123456789", 8)}`, `GF=glc_${rnd(B64, 60)}==`],
    misses: ["glsa_short", `glc_${rnd(ALNUM, 31)}`],
  },
  { rule: "linear-key", hits: [`lin_api_${rnd(ALNUM, 40)}`], misses: [`lin_api_${rnd(ALNUM, 31)}`] },
  { rule: "notion-token", hits: [`ntn_${rnd("0123456789", 11)}${rnd(ALNUM, 35)}`], misses: [`ntn_${rnd(ALNUM, 45)}`] },
  { rule: "vault-token", hits: [`hvs.${rnd(ALNUM + "_-", 95)}`], misses: [`hvs.${rnd(ALNUM, 60)}`] },
  { rule: "vercel-token", hits: [`vcp_${rnd(ALNUM, 24)}`], misses: [`vcp_${rnd(ALNUM, 19)}`] },
  {
    rule: "databricks-token",
    hits: [`token = dapi${rnd("abcdef0123456789", 32)}`],
    misses: [`dapi${rnd("abcdef0123456789", 31)}`, `rapidapi${rnd("abcdef0123456789", 32)}`],
  },
  { rule: "figma-token", hits: [`figd_${rnd(ALNUM + "_-", 40)}`], misses: [`figd_${rnd(ALNUM, 39)}`] },
  { rule: "cloudflare-token", hits: [`cfut_${rnd(ALNUM, 48)}`], misses: [`cfut_${rnd(ALNUM, 47)}`] },
  { rule: "tailscale-key", hits: [`tskey-auth-${rnd(ALNUM, 12)}-${rnd(ALNUM, 30)}`], misses: ["tskey-auth-short"] },
  { rule: "onepassword-token", hits: [`OP_TOKEN=ops_ey${rnd(B64, 200)}fQ==`], misses: [`ops_ey${rnd(ALNUM, 50)}`] },
  { rule: "groq-key", hits: [`gsk_${rnd(ALNUM, 52)}`], misses: [`gsk_${rnd(ALNUM, 51)}`] },
  {
    rule: "huggingface-token",
    hits: [`hf_${rnd("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)}`],
    misses: [`hf_${rnd(ALNUM, 34)}1`, "hf_hub_download"],
  },
  {
    rule: "slack-token",
    hits: [`xoxb-${rnd("0123456789", 12)}-${rnd("0123456789", 13)}-${rnd(ALNUM, 24)}`, `xoxp-${rnd("0123456789", 11)}-${rnd(ALNUM, 30)}`],
    misses: ["xoxb-", "xoxb-123-short", "xoxz-123456789012-abcdefghijkl"],
  },
  {
    rule: "slack-webhook",
    hits: [`https://hooks.slack.com/services/T${rnd(UPPER_DIGITS, 8)}/B${rnd(UPPER_DIGITS, 8)}/${rnd(ALNUM, 24)}`],
    misses: ["https://hooks.slack.com/services/"],
  },
  { rule: "stripe-key", hits: [`sk_live_${rnd(ALNUM, 24)}`, `rk_live_${rnd(ALNUM, 24)}`], misses: [`sk_test_${rnd(ALNUM, 24)}`, "sk_live_short"] },
  { rule: "anthropic-key", hits: [`sk-ant-api03-${rnd(ALNUM + "_-", 90)}`], misses: ["sk-ant-short"] },
  {
    rule: "openai-key",
    hits: [`sk-${rnd(ALNUM, 48)}`, `sk-proj-${rnd(ALNUM + "_-", 100)}`],
    misses: ["sk-some-long-css-class-name-here", `sk-${rnd(ALNUM, 10)}`, `ask-${rnd(ALNUM, 48)}`],
  },
  {
    rule: "jwt",
    hits: [`eyJhbGciOiJIUzI1NiJ9.eyJ${rnd(ALNUM, 40)}.${rnd(ALNUM + "_-", 43)}`],
    misses: ["eyJhbGciOiJIUzI1NiJ9", "eyJabc.eyJdef.ghi", `eyJhbGciOiJIUzI1NiJ9.${rnd(ALNUM, 40)}.${rnd(ALNUM, 43)}`],
  },
  {
    rule: "authorization-header",
    hits: [
      `Authorization: Bearer ${rnd(ALNUM, 32)}`,
      "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='",
      `authorization: token ${rnd(ALNUM, 40, 5)}`,
      `"Authorization": "Bot ${rnd(ALNUM, 30)}"`,
    ],
    misses: [
      "Authorization: Bearer ${TOKEN}",
      "headers.Authorization = makeHeader(apiKey)",
      "Authorization: Bearer <token>",
      "Authorization: token ?? null",
      "Authorization: 'SOME_TOKEN'",
      "Authorization: Bearer test-key",
    ],
  },
  { rule: "bearer-token", hits: [`got Bearer ${rnd(ALNUM, 40)} back`], misses: ["Bearer tokens are short", `Bearer ${rnd(ALNUM, 19)}`] },
  {
    rule: "secret-assignment",
    hits: [
      "GITHUB_TOKEN=abc123xyz",
      "export DB_PASSWORD=hunter2!",
      'OPENAI_API_KEY="s3cret-value-1"',
      '{"SLACK_BOT_TOKEN": "value-42"}',
      "PASSWORD=correcthorse",
      "MY_APP_SECRET='a1b2c3'",
    ],
    misses: [
      "const API_KEY = process.env.API_KEY",
      "GITHUB_TOKEN=$GITHUB_TOKEN",
      "API_KEY=${API_KEY}",
      "TOKEN_FILE=/run/secret",
      "SKIP_AUTH=1",
      "USE_KEY=true",
      "API_KEY=your-api-key",
      "API_KEY=<key>",
      "MY_TOKEN_PATH=x",
      "api_key=api_key",
      "GOOGLE_APPLICATION_CREDENTIALS=/path/to/key.json",
      "API_KEY=sk-...",
    ],
  },
  {
    rule: "url-password",
    hits: [
      "postgres://admin:S3cr3t!@db.internal:5432/app",
      "https://deploy:ghx7Yq2@git.corp.local/repo.git",
      `https://${rnd("abcdef0123456789", 40)}:x-oauth-basic@github.com/o/r`,
    ],
    misses: ["https://user:password@host", "https://a:b@example.com/", "http://host:8080/path", "postgres://user:${PASSWORD}@db", "https://user@host"],
  },
  {
    rule: "private-key",
    hits: [
      `-----BEGIN RSA PRIVATE KEY-----\n${rnd(B64, 64)}\n${rnd(B64, 64, 3)}\n-----END RSA PRIVATE KEY-----`,
      `{"private_key": "-----BEGIN PRIVATE KEY-----\\n${rnd(B64, 64)}\\n-----END PRIVATE KEY-----\\n"}`,
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${rnd(B64, 70)}\n(cut)`,
    ],
    misses: [
      "/** `-----BEGIN RSA PRIVATE KEY-----` marks a key */",
      "-----BEGIN CERTIFICATE-----\nMIIB" + rnd(B64, 60) + "\n-----END CERTIFICATE-----",
      "-----BEGIN PUBLIC KEY-----\n" + rnd(B64, 64),
    ],
  },
];

describe("built-in rules", () => {
  it("cover every rule name", () => {
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(BUILTIN_RULE_NAMES));
  });

  for (const c of cases) {
    describe(c.rule, () => {
      it.each(c.hits)("hides %s", (text) => {
        const { text: out, counts } = r.redactWithReport(text);
        expect(out).toContain(`[redacted:${c.rule}]`);
        expect(counts[c.rule]).toBeGreaterThan(0);
        // The secret part is gone: no run of 12 characters of it survives.
        const secretish = text.match(/[A-Za-z0-9+/_-]{16,}/g) ?? [];
        for (const s of secretish)
          if (/[0-9]/.test(s) && !/^(?:DefaultEndpoints|EndpointSuffix|registry)/.test(s)) expect(out.includes(s), `${s} survived in ${out}`).toBe(false);
      });
      it.each(c.misses)("keeps %s", (text) => {
        expect(hide(text)).toBe(text);
      });
    });
  }

  it("keeps what is around a secret: header names, variable names, URLs", () => {
    expect(hide(`Authorization: Bearer ${rnd(ALNUM, 32)}\nnext line`)).toBe("Authorization: Bearer [redacted:authorization-header]\nnext line");
    expect(hide("GITHUB_TOKEN=abc123xyz make")).toBe("GITHUB_TOKEN=[redacted:secret-assignment] make");
    expect(hide("postgres://admin:S3cr3t!@db:5432/app")).toBe("postgres://admin:[redacted:url-password]@db:5432/app");
  });

  it("hides a cut private key block (no END) up to where the key body stops", () => {
    const out = hide(`before\n-----BEGIN EC PRIVATE KEY-----\n${rnd(B64, 64)}\n${rnd(B64, 30)}`);
    expect(out).toBe("before\n[redacted:private-key]");
  });

  it("leaves out disabled rules and adds configured shapes", () => {
    const custom = new Redactor({
      disabledRules: ["url-password"],
      shapes: [{ name: "acme-token", prefix: "acme_", chars: "a-f0-9", minLength: 32, maxLength: 32 }],
    });
    expect(custom.redact("postgres://a:S3cr3t!@db")).toBe("postgres://a:S3cr3t!@db");
    expect(custom.redact(`key acme_${rnd("abcdef0123456789", 32)} end`)).toBe("key [redacted:acme-token] end");
    expect(custom.redact(`key acme_${rnd("abcdef0123456789", 33)} end`)).toContain("acme_");
  });

  it("hides literal values (a server's env) wherever they appear, longest first", () => {
    const lit = new Redactor({ literals: ["hunter2-horse", "hunter2-horse-battery", "short"] });
    expect(lit.redact("a hunter2-horse-battery b hunter2-horse c short")).toBe("a [redacted:env-value] b [redacted:env-value] c short");
    // A literal inside a placeholder would undo what was hidden: such values are skipped.
    const inside = new Redactor({ literals: ["redacted", "github-token"] });
    expect(inside.redact(`ghp_${rnd(ALNUM, 36)}`)).toBe("[redacted:github-token]");
  });
});
