/**
 * The blob store is where bytes reach the cache: every write is redacted there, whatever the caller
 * did before (a caller that forgot, pi's full-output file, a forged "already redacted" value).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { Redactor } from "../../../../lib/redact/index.ts";

// Built at run time: no whole token in the repository.
const TOKEN = ["ghp", "_", "St0reW".repeat(6)].join("");
const AWS_KEY = ["AKIA", "Q7", "RSTUVWXYZ23456"].join("");
const PEM = `-----BEGIN PRIVATE KEY-----\n${"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(2)}\n-----END PRIVATE KEY-----\n`;

/** Every file under `dir`, as one text. */
const cacheText = (dir: string) =>
  readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), "latin1"))
    .join("\n");

describe("BlobStore redacts every write", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-blob-redact-"));
    dir = join(root, "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("hides secrets in text put by a caller that did not redact (built-in rules when given no redactor)", async () => {
    const store = new BlobStore({ dir });
    const text = `login ${TOKEN}\nkey ${AWS_KEY}\n${JSON.stringify({ k8s: JSON.stringify({ key: PEM }) })}\n`;
    const written = await store.put(text);
    const stored = readFileSync(written.path, "utf8");
    expect(stored).toContain("[redacted:github-token]");
    for (const secret of [TOKEN, AWS_KEY, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"]) expect(cacheText(dir)).not.toContain(secret);
  });

  it("uses the session's redactor: its literal values and added shapes", async () => {
    const redactor = new Redactor({ literals: ["my-server-env-secret-77"] });
    const store = new BlobStore({ dir, redactor });
    redactor.addLiterals(["added-later-secret-88"]);
    const written = await store.put("env my-server-env-secret-77 and added-later-secret-88");
    expect(readFileSync(written.path, "utf8")).toBe("env [redacted:env-value] and [redacted:env-value]");
  });

  it("prepare() names the id of what put() will write, and put() writes exactly that", async () => {
    const store = new BlobStore({ dir });
    const prepared = store.prepare(`out ${TOKEN}`);
    expect(prepared.text).toBe("out [redacted:github-token]");
    const written = await store.put(prepared);
    expect(written.id).toBe(prepared.id);
    expect(written.bytes).toBe(prepared.bytes);
    expect((await store.put(`out ${TOKEN}`)).id).toBe(prepared.id);
  });

  it("redacts a forged prepared value (an object that did not come from prepare())", async () => {
    const store = new BlobStore({ dir });
    const other = new BlobStore({ dir: join(root, "other") });
    const forged = { id: "0".repeat(64), bytes: 10, text: `forged ${TOKEN}` };
    const fromOther = other.prepare("x".repeat(20));
    await store.put(forged as never);
    await store.put({ ...fromOther, text: `swapped ${TOKEN}` } as never);
    expect(cacheText(dir)).not.toContain(TOKEN);
  });

  it("offers no way to copy a file in unredacted", () => {
    expect("putFile" in BlobStore.prototype).toBe(false);
  });
});
