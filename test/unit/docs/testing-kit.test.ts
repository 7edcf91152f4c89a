import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../helpers/pi-host.ts";

const EXAMPLE = "test/unit/testing/plugin-test-example.test.ts";

describe("the testing kit's example in docs/plugins.md", () => {
  it("is, to the byte, the test that runs in this repository", () => {
    const doc = readFileSync(join(repoRoot, "docs/plugins.md"), "utf8");
    const section = doc.slice(doc.indexOf("\n## Testing a plugin\n"));
    const block = /\n```ts\n([\s\S]*?)\n```\n/.exec(section)?.[1];
    expect(section.length).toBeLessThan(doc.length);
    expect(block).toBe(readFileSync(join(repoRoot, EXAMPLE), "utf8").replace(/\n$/, ""));
  });
});
