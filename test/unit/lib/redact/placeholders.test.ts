/**
 * The documentation exemption looks at the whole value: obvious placeholders stay readable, a
 * realistic value that merely starts with digits, a flag word or a placeholder word is hidden, and a
 * URL's password is kept only when its host is example.com/.org/.net (or a subdomain of one).
 */
import { describe, expect, it } from "vitest";
import { Redactor } from "../../../../lib/redact/index.ts";

const r = new Redactor();

/** Realistic values that start like a placeholder: every one is hidden, nothing of the value is left. */
const leaks: Array<[text: string, secret: string]> = [
  ["DB_PASSWORD=2024!Secure#Pass-Xq9", "2024!Secure#Pass-Xq9"],
  ["DB_PASSWORD=1990.Kx83!mQzP", "1990.Kx83!mQzP"],
  ["NPM_TOKEN=58392017-4a1b-4c2d-9e8f-0123456789ab", "58392017-4a1b-4c2d-9e8f-0123456789ab"],
  ["postgres://admin:1984-Wq7x-pLm2@db.internal:5432/app", "1984-Wq7x-pLm2"],
  ["postgres://admin:2024!Secure#Pass@db.internal/app", "2024!Secure#Pass"],
  ["https://deploy:1984-Wq7x-pLm2@git.corp.net/repo.git", "1984-Wq7x-pLm2"],
  ["SESSION_SECRET=no-way-J0se!Kq81", "no-way-J0se!Kq81"],
  ["ADMIN_PASSWORD=Testing-2024-Prod!", "Testing-2024-Prod!"],
  ["DB_PASSWORD=sample!Tx9#2", "sample!Tx9#2"],
  ["API_KEY=on.the.r0cks.42", "on.the.r0cks.42"],
  ["REDIS_PASSWORD=null&void#77Zq", "null&void#77Zq"],
  ["API_TOKEN=my-prod-token-839201", "my-prod-token-839201"],
  ["GH_TOKEN=yourself12345Abc", "yourself12345Abc"],
  ["STRIPE_SECRET=examplex9Q2kLmN", "examplex9Q2kLmN"],
  ["//registry.npmjs.org/:_authToken=58392017-4a1b-4c2d-9e8f-0123456789ab", "58392017-4a1b-4c2d-9e8f-0123456789ab"],
  ["Authorization: Basic 12345678=", "12345678="],
  ["Authorization: Token 20240101-9f8e7d6c5b4a", "20240101-9f8e7d6c5b4a"],
  ["Bearer test_9f8e7d6c5b4a3f2e1d0c9b8a7f6e", "test_9f8e7d6c5b4a3f2e1d0c9b8a7f6e"],
  ["Authorization: Bearer TESTa9f8e7d6c5b4a3f2e1d0c", "TESTa9f8e7d6c5b4a3f2e1d0c"],
  ["postgres://admin:S3cretPassw0rd@example.company.internal:5432/x", "S3cretPassw0rd"],
  ["postgres://admin:S3cretPassw0rd@example.network:5432/x", "S3cretPassw0rd"],
  ["postgres://admin:S3cretPassw0rd@example.com.evil.io:5432/x", "S3cretPassw0rd"],
];

/** Obvious placeholders: kept as they are. */
const placeholders = [
  "API_KEY=your-api-key",
  "API_KEY=YOUR_API_KEY_HERE",
  "GITHUB_TOKEN=my-token",
  "API_KEY=<token>",
  "API_KEY=${TOKEN}",
  "API_KEY=sk-...",
  "API_KEY=abc...xyz",
  "DB_PASSWORD=test",
  "DB_PASSWORD=sample",
  "DB_PASSWORD=changeme",
  "API_TOKEN=dummy-token",
  "API_TOKEN=example_secret",
  "API_TOKEN=xxxxxxxx",
  "API_TOKEN=XXXX-XXXX-XXXX",
  "SKIP_AUTH=1",
  "PORT_KEY=3000",
  "var CHARS_PER_TOKEN=3.5,ESTIMATED_IMAGE_CHARS=4800;",
  "MIN_VERSION_KEY=1.2.3",
  "USE_KEY=true",
  "USE_KEY=no",
  "API_KEY=null",
  "API_KEY=SOME_TOKEN",
  "postgres://user:S3cretPassw0rd@example.com/app",
  "postgres://user:S3cretPassw0rd@db.example.org:5432/app",
  "https://user:S3cretPassw0rd@www.example.net/",
  "Authorization: Bearer <token>",
  "Authorization: Bearer ${TOKEN}",
  "Authorization: Bearer test-key",
  "Authorization: Bearer your-token-here",
  "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
  "Bearer YOUR_ACCESS_TOKEN_GOES_HERE_NOW",
];

describe("placeholders are judged on the whole value", () => {
  it.each(leaks)("hides %s", (text, secret) => {
    const out = r.redact(text);
    expect(out).toContain("[redacted:");
    expect(out).not.toContain(secret);
  });

  it.each(placeholders)("keeps %s", (text) => {
    expect(r.redact(text)).toBe(text);
  });

  it("judges the value inside JSON and quotes to its end, not the rest of the line", () => {
    expect(r.redact('{"DB_PASSWORD": "test", "other": "2024!x"}')).toBe('{"DB_PASSWORD": "test", "other": "2024!x"}');
    expect(r.redact('{"DB_PASSWORD": "2024!Secure#Pass-Xq9"}')).not.toContain("Secure");
    expect(r.redact("export API_KEY='your-api-key'")).toBe("export API_KEY='your-api-key'");
  });
});
