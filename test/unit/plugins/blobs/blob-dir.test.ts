import { describe, expect, it } from "vitest";
import { DEFAULT_BLOB_DIR, resolveBlobDir } from "../../../../lib/blobs/index.ts";

describe("the default blob directory follows pi's agent directory", () => {
  it("is ~/.pi/cache/pi-governor/blobs for the usual agent dir, and under PI_CODING_AGENT_DIR otherwise", () => {
    expect(resolveBlobDir(DEFAULT_BLOB_DIR, { home: "/home/u", agentDir: "/home/u/.pi/agent" })).toBe("/home/u/.pi/cache/pi-governor/blobs");
    expect(resolveBlobDir(DEFAULT_BLOB_DIR, { home: "/home/u" })).toBe("/home/u/.pi/cache/pi-governor/blobs");
    expect(resolveBlobDir(DEFAULT_BLOB_DIR, { home: "/home/u", agentDir: "/tmp/profile/agent" })).toBe("/tmp/profile/agent/cache/pi-governor/blobs");
  });

  it("an explicit blobs.dir is used as written", () => {
    expect(resolveBlobDir("~/blobs", { home: "/home/u", agentDir: "/tmp/profile/agent" })).toBe("/home/u/blobs");
  });
});
