import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../lib/blobs/index.ts";
import { scanLines } from "../../../../lib/blobs/read-lines.ts";
import { createGovernor } from "pi-governor/host";
import { TOOL_STAGE, definePreset, definePlugin, type Governor } from "pi-governor";
import { blobs } from "../../../../plugins/blobs/index.ts";
import { breaker } from "../../../../plugins/circuit-breaker/index.ts";
import { timeout } from "../../../../plugins/timeout/index.ts";
import { z } from "zod";
import { textOf } from "../../../helpers/blobs-governor.ts";

/** 40 a's and a non-match: `^(a+)+$` needs about 2^40 backtracking steps on it (hours). */
const EVIL = `${"a".repeat(40)}!`;

/** Records which tools pass through the toolCall onion (proof that a tool is governed). */
const recorder = (seen: string[]) =>
  definePlugin({
    name: "test:recorder",
    configKey: "recorder",
    description: "records governed calls",
    schema: z.object({}),
    defaults: {},
    apply(pipeline) {
      pipeline.hooks.toolCall.tap({ name: "test:recorder", stage: TOOL_STAGE.OBSERVE }, (next, tool) => (call) => {
        seen.push(tool.name);
        return next(call);
      });
    },
  })();

describe("blob_read grep: safe patterns, governed, abortable", () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pigov-safegrep-"));
    dir = join(root, "blobs");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  async function governor(
    config: Record<string, unknown>,
    extra: (seen: string[]) => ReturnType<ReturnType<typeof definePlugin>>[] = () => [],
  ): Promise<{ gov: Governor; seen: string[] }> {
    const seen: string[] = [];
    const gov = await createGovernor({
      preset: definePreset({ name: "p", description: "", plugins: () => [blobs(), recorder(seen), ...extra(seen)] }),
      cwd: "/",
      agentDir: "/nonexistent",
      env: {},
      layers: [{ kind: "global", source: "t", data: { blobs: { dir }, ...config } }],
    });
    return { gov, seen };
  }

  it("is governed (the toolCall wrappers see it) and still tagged rehydration", async () => {
    const { gov, seen } = await governor({});
    const { id } = await new BlobStore({ dir }).put("alpha\nbeta\ngamma");
    const obs = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "be.a" });
    expect(obs.status).toBe("SUCCESS");
    expect(textOf(obs.content)).toContain("\n2: beta\n");
    expect(seen).toEqual(["blob_read"]);
    expect(gov.pipeline.tools.get("blob_read")!.info.tags).toContain("rehydration");
  });

  it("answers a catastrophic pattern promptly with an error that tells the model what to do", async () => {
    const { gov } = await governor({});
    const { id } = await new BlobStore({ dir }).put(["start", EVIL, "end"].join("\n"));
    const started = performance.now();
    const obs = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "^(a+)+$" });
    expect(performance.now() - started).toBeLessThan(15_000); // the default deadline is 2 s per batch
    expect(obs.status).toBe("ERROR");
    const text = textOf(obs.content);
    expect(text).toMatch(/took longer than 2000 ms on lines 1-3 .*backtracks catastrophically/);
    expect(text).toMatch(/Use a simpler pattern: a plain literal word/);
    if (obs.status === "ERROR") expect(obs.error.category).toBe("invalid_input");
  });

  it("never blocks the event loop: timers keep firing while a slow pattern is searched", async () => {
    const { gov } = await governor({});
    // 21 a's: about 2^21 backtracking steps per line (~0.1 s each), the batch well below the deadline.
    const slowLine = `${"a".repeat(21)}!`;
    const { id } = await new BlobStore({ dir }).put(Array.from({ length: 6 }, () => slowLine).join("\n"));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const started = performance.now();
    const obs = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "^(a+)+$" });
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    // Normally the search completes (no line matches); on a heavily loaded machine the batch may pass
    // the 2 s deadline instead. Either way the answer is a clean one.
    if (obs.status === "SUCCESS") expect(textOf(obs.content)).toContain("0 line(s) matching");
    else expect(textOf(obs.content)).toMatch(/took longer than 2000 ms/);
    // On the main thread the whole search would run between two ticks; here timers fire throughout.
    expect(ticks).toBeGreaterThanOrEqual(Math.min(10, Math.floor(elapsed / 50)));
    expect(ticks).toBeGreaterThan(3);
  });

  it("the timeout plugin ends a slow grep, and the breaker leaves blob_read alone", async () => {
    const { gov } = await governor({ timeout: { perTool: { blob_read: 300 } }, breaker: { failureThreshold: 1 } }, () => [timeout(), breaker()]);
    const { id } = await new BlobStore({ dir }).put(EVIL);
    for (let i = 0; i < 2; i++) {
      const started = performance.now();
      const obs = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "^(a+)+$" });
      expect(obs.status).toBe("TIMEOUT_EXCEEDED");
      expect(performance.now() - started).toBeLessThan(10_000);
    }
    // A literal search right after still answers (no open circuit, no stuck worker).
    const ok = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "aaa!" });
    expect(ok.status).toBe("SUCCESS");
  });

  it("pi's abort (Esc) ends a grep at once", async () => {
    const { gov } = await governor({});
    const { id } = await new BlobStore({ dir }).put(EVIL);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("Esc")), 100);
    const started = performance.now();
    const obs = await gov.pipeline.callTool("blob_read", { blobId: id, grep: "^(a+)+$" }, { signal: controller.signal });
    expect(obs.status).not.toBe("SUCCESS");
    expect(performance.now() - started).toBeLessThan(1_900); // well before the 2 s pattern deadline
  });

  it("an aborted read stops between chunks instead of scanning the whole blob", async () => {
    const store = new BlobStore({ dir });
    const { path } = await store.put(Array.from({ length: 200_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n"));
    const controller = new AbortController();
    let seen = 0;
    await expect(
      (async () => {
        for await (const l of scanLines(path, 1, 1 << 20, controller.signal)) {
          seen = l.line;
          if (l.line === 10) controller.abort(new Error("stop"));
        }
      })(),
    ).rejects.toThrow("stop");
    // One 64 KiB chunk holds about 1,300 of these lines: the scan ended in the first chunks.
    expect(seen).toBeLessThan(3_000);
    const page = store.readLinePage((await store.put("a\nb")).id, 1, 10, 1000, AbortSignal.abort(new Error("gone")));
    await expect(page).rejects.toThrow("gone");
    await expect(store.grep((await store.put("a\nb")).id, "a", { signal: AbortSignal.abort(new Error("gone")) })).rejects.toThrow("gone");
  });
});
