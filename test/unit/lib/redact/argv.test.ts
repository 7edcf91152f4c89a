import { describe, expect, it } from "vitest";
import { Redactor, redactArgs, redactedCommandLine, secretArgValues } from "../../../../lib/redact/index.ts";

const TOKEN = ["ghp", "_", "ArgvTest".repeat(4), "Zz99"].join("");

describe("redactArgs", () => {
  it("hides the value after an option that names a secret, in both spellings", () => {
    expect(redactArgs(["serve", "--token", "abc123", "--api-key=k-1", "--password", "pw", "--port", "8080"])).toEqual([
      "serve",
      "--token",
      "[redacted:argument]",
      "--api-key=[redacted:argument]",
      "--password",
      "[redacted:argument]",
      "--port",
      "8080",
    ]);
    expect(redactArgs(["--github-token", "x", "--client_secret=y", "--private-key", "z"])).toEqual([
      "--github-token",
      "[redacted:argument]",
      "--client_secret=[redacted:argument]",
      "--private-key",
      "[redacted:argument]",
    ]);
  });

  it("keeps options that only look alike, flags without a value, and empty values", () => {
    expect(redactArgs(["--tokens-per-minute", "50", "--keyboard", "us", "--auth", "--verbose", "--token="])).toEqual([
      "--tokens-per-minute",
      "50",
      "--keyboard",
      "us",
      "--auth",
      "--verbose",
      "--token=",
    ]);
  });

  it("runs every argument through the redactor's rules", () => {
    const r = new Redactor();
    expect(redactArgs(["x", TOKEN, `--header=Authorization: Bearer ${TOKEN}`], r)).toEqual([
      "x",
      "[redacted:github-token]",
      "--header=Authorization: Bearer [redacted:github-token]",
    ]);
    expect(redactedCommandLine("bun", ["x", "kotadb", "--token", "s3cret"], r)).toBe("bun x kotadb --token [redacted:argument]");
  });

  it("lists the hidden values, for the redactor's literals", () => {
    expect(secretArgValues(["--token", "abc123", "--api-key=k-1", "--port", "1", "--auth", "--verbose"])).toEqual(["abc123", "k-1"]);
  });
});
