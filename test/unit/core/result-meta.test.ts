import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  failure,
  messageMeta,
  NetworkError,
  resultMeta,
  success,
  textContent,
  timedOut,
  withResultMeta,
  type AgentMessageLike,
  type ResultMeta,
} from "pi-governor";
import { observationDetails } from "pi-governor/host";
import { readMeta, withMeta } from "../../../core/result-meta.ts";

const BLOB_ID = "a".repeat(64);

/** Every field set, as the stages of one call could leave it. */
const FULL: ResultMeta = {
  call: { status: "ERROR", durationMs: 1200, retries: 2 },
  error: { code: "GOV_NETWORK", category: "network", message: "reset" },
  budget: {
    maxBytes: 24_000,
    clamped: [{ arg: "limit", from: 500, to: 50 }],
    downshift: [
      { change: "", bytes: 50_000 },
      { change: "limit=10", bytes: null },
    ],
    shown: 0,
    fitted: false,
  },
  blob: { truncated: true, id: BLOB_ID, path: `/cache/${BLOB_ID}.txt`, originalBytes: 90_000, excerptBytes: 4_000 },
  pinned: true,
  retry: { retries: 2, stoppedBy: "max_attempts" },
  circuit: { key: "kota", state: "open", retryInMs: 30_000 },
  timeout: { limitMs: 300_000, scope: "total" },
};

/** Details exactly as pi-governor wrote them into session files before the typed record existed. */
const OLD_SHAPE = {
  governor: { status: "SUCCESS", durationMs: 812, retries: 1 },
  budget: {
    maxBytes: 24_000,
    downshift: [
      { change: "", bytes: 50_000 },
      { change: "context_lines=1", bytes: 9_000 },
    ],
    shown: 1,
    fitted: true,
  },
  truncated: true,
  blobId: BLOB_ID,
  blobPath: `/home/u/.cache/pi-governor/blobs/${BLOB_ID}.txt`,
  originalBytes: 90_000,
  excerptBytes: 4_000,
  pinned: true,
  retry: { retries: 1 },
  timeoutScope: "attempt",
  kota: { tool: "search", rawBytes: 51_000, bytes: 50_000 },
};

describe("result meta <-> pi details", () => {
  it("round-trips every field through the details JSON (and through JSON.stringify, as pi persists it)", () => {
    const details = withMeta({ own: 1 }, FULL);
    expect(readMeta(details)).toEqual(FULL);
    expect(readMeta(JSON.parse(JSON.stringify(details)))).toEqual(FULL);
    expect(details.own).toBe(1);
  });

  it("writes the details keys older versions wrote, so older readers and session files agree", () => {
    expect(withMeta(undefined, FULL)).toMatchObject({
      governor: { status: "ERROR", durationMs: 1200, retries: 2 },
      truncated: true,
      blobId: BLOB_ID,
      blobPath: `/cache/${BLOB_ID}.txt`,
      originalBytes: 90_000,
      excerptBytes: 4_000,
      pinned: true,
      retry: { retries: 2, stoppedBy: "max_attempts" },
      circuit: { key: "kota", state: "open", retryInMs: 30_000 },
      timeoutMs: 300_000,
      timeoutScope: "total",
      budget: { maxBytes: 24_000, shown: 0, fitted: false },
    });
  });

  it("reads details an older version stored in a session file", () => {
    const meta = readMeta(OLD_SHAPE);
    expect(meta).toEqual({
      call: { status: "SUCCESS", durationMs: 812, retries: 1 },
      budget: {
        maxBytes: 24_000,
        downshift: [
          { change: "", bytes: 50_000 },
          { change: "context_lines=1", bytes: 9_000 },
        ],
        shown: 1,
        fitted: true,
      },
      blob: { truncated: true, id: BLOB_ID, path: OLD_SHAPE.blobPath, originalBytes: 90_000, excerptBytes: 4_000 },
      pinned: true,
      retry: { retries: 1 },
      timeout: { scope: "attempt" },
    });
    // A blob_read page named its blob without being cut; a cut whose store failed has no id.
    expect(readMeta({ blobId: BLOB_ID, nextLine: 401 }).blob).toEqual({ truncated: false, id: BLOB_ID });
    expect(readMeta({ truncated: true, blobError: "EACCES", originalBytes: 9, excerptBytes: 5 }).blob).toEqual({
      truncated: true,
      error: "EACCES",
      originalBytes: 9,
      excerptBytes: 5,
    });
  });

  it("ignores garbage safely: non-objects, wrong types, unknown statuses", () => {
    for (const junk of [undefined, null, 0, "details", [], [{ pinned: true }], true]) expect(readMeta(junk)).toEqual({});
    expect(
      readMeta({
        governor: { status: "MAYBE", durationMs: 1 },
        budget: { maxBytes: "24k" },
        truncated: "yes",
        blobId: 42,
        pinned: "true",
        retry: { retries: -1 },
        circuit: { key: 1, state: "open" },
        timeoutMs: Number.NaN,
        error: "boom",
      }),
    ).toEqual({});
    // One bad sub-field does not cost the good ones.
    expect(
      readMeta({
        governor: { status: "ERROR", durationMs: "slow", retries: 1 },
        budget: { maxBytes: 10, clamped: [{ arg: 1 }, { arg: "limit", from: 9, to: 5 }], downshift: "x" },
      }),
    ).toEqual({
      call: { status: "ERROR", durationMs: 0, retries: 1 },
      budget: { maxBytes: 10, clamped: [{ arg: "limit", from: 9, to: 5 }] },
    });
  });

  it("never throws on any JSON, and reading what it writes gives back what it read", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (details, nested) => {
        const meta = readMeta(details);
        expect(readMeta(withMeta({}, meta))).toEqual(meta);
        const dirty = readMeta({
          governor: nested,
          budget: nested,
          retry: nested,
          circuit: nested,
          blobId: nested,
          truncated: nested,
          timeoutMs: nested,
          pinned: nested,
        });
        expect(readMeta(withMeta(undefined, dirty))).toEqual(dirty);
      }),
      { numRuns: 500 },
    );
  });

  it("never changes the details it is given, keeps the tool's keys, and clears marks on request", () => {
    const before = structuredClone(OLD_SHAPE);
    const out = withMeta(OLD_SHAPE, { pinned: false, blob: { truncated: false, id: BLOB_ID } });
    expect(OLD_SHAPE).toEqual(before);
    expect(out.kota).toEqual(OLD_SHAPE.kota);
    expect(out.pinned).toBeUndefined();
    expect(out.truncated).toBeUndefined();
    expect(readMeta(out).blob).toMatchObject({ truncated: false, id: BLOB_ID });
  });

  it("the typed accessors of a toolResult value read and write through the details", () => {
    const value = { toolName: "read", toolCallId: "c", input: {}, content: textContent("x"), details: { fullOutputPath: "/tmp/x" }, isError: false };
    const pinned = withResultMeta(value, { pinned: true });
    expect(value.details).toEqual({ fullOutputPath: "/tmp/x" });
    expect(pinned.details).toEqual({ fullOutputPath: "/tmp/x", pinned: true });
    expect(resultMeta(pinned).pinned).toBe(true);
    expect(resultMeta({ details: undefined })).toEqual({});
  });
});

describe("observationDetails: the adapter's one mapping from an observation to pi", () => {
  it("writes the tool's details, the stages' meta, status and timing, and the error", () => {
    const ok = success("kota_search", textContent("x"), { kota: { tool: "search" } }, 812.6);
    ok.meta = { budget: { maxBytes: 24_000 }, retry: { retries: 1 } };
    ok.retries = 1;
    expect(observationDetails(ok)).toEqual({
      kota: { tool: "search" },
      budget: { maxBytes: 24_000 },
      retry: { retries: 1 },
      governor: { status: "SUCCESS", durationMs: 813, retries: 1 },
    });

    const failed = failure("kota_search", new NetworkError("reset", { agentMessage: "Try again later." }));
    const details = observationDetails(failed);
    expect(details.error).toMatchObject({ category: "network" });
    expect(readMeta(details).call?.status).toBe("ERROR");

    const late = timedOut("kota_search", 300_000);
    late.meta = { ...late.meta, timeout: { ...late.meta.timeout, scope: "attempt" } };
    expect(observationDetails(late)).toMatchObject({ timeoutMs: 300_000, timeoutScope: "attempt", governor: { status: "TIMEOUT_EXCEEDED" } });
  });
});

describe("messageMeta: one reading per message object in the context hook", () => {
  const message = (details: unknown): AgentMessageLike => ({
    role: "toolResult",
    toolCallId: "c",
    toolName: "read",
    content: textContent("x"),
    details,
    isError: false,
  });

  it("reads a message once and hands every later reader the same record", () => {
    const m = message({ blobId: BLOB_ID, pinned: true });
    const first = messageMeta(m);
    expect(first).toEqual({ blob: { truncated: false, id: BLOB_ID }, pinned: true });
    expect(messageMeta(m)).toBe(first);
    // A stage that changes a message makes a new object, which is read afresh.
    expect(messageMeta({ ...m, details: {} } as AgentMessageLike)).toEqual({});
  });

  it("gives messages that are not tool results, and garbage details, an empty record", () => {
    expect(messageMeta({ role: "user", content: "hi", details: { pinned: true } })).toEqual({});
    expect(messageMeta(message("not json"))).toEqual({});
    expect(messageMeta(message(null))).toEqual({});
  });
});
