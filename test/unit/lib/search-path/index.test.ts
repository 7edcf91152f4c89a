import { describe, expect, it } from "vitest";
import { absolutePathEntries, absoluteSearchPath } from "../../../../lib/search-path/index.ts";

describe("the PATH a spawned program is looked up on", () => {
  it("keeps only absolute entries: relative ones (., node_modules/.bin, an empty entry) resolve in the repository", () => {
    expect(absolutePathEntries("node_modules/.bin:/usr/bin::.:/bin:./bin")).toEqual(["/usr/bin", "/bin"]);
    expect(absoluteSearchPath("node_modules/.bin:/usr/bin::/bin")).toBe("/usr/bin:/bin");
    expect(absoluteSearchPath(undefined)).toBeUndefined();
    expect(absolutePathEntries(undefined)).toEqual([]);
  });
});
