import { describe, expect, it } from "vitest";
import { TOOL_STAGE, contentText, type ToolObservation } from "pi-governor";
import { breaker, breakerDefaults, breakerWrapper, circuitKey, type BreakerOptions } from "../../../../plugins/circuit-breaker/index.ts";
import { ManualClock } from "pi-governor/testing";
import { ok, pipelineWith, sysError } from "../../../helpers/wrapper-pipeline.ts";

const opts = (o: Partial<BreakerOptions> = {}): BreakerOptions => ({ ...breakerDefaults, failureThreshold: 3, cooldownMs: 30_000, ...o });

/** A tool whose next outcome the test sets; counts how often it really ran. */
function setup(o: Partial<BreakerOptions> = {}) {
  const clock = new ManualClock();
  let mode: "ok" | "fail" | "invalid" = "ok";
  let ran = 0;
  const events: string[] = [];
  const { wrapper, circuits } = breakerWrapper(opts(o), { clock, onStateChange: (e) => events.push(`${e.key}:${e.state}`) });
  const body = async () => {
    ran++;
    if (mode === "fail") throw sysError("ECONNRESET");
    if (mode === "invalid") throw Object.assign(new Error("Missing required parameter: q"), { code: -32602 });
    return ok();
  };
  const p = pipelineWith(clock, body, [[TOOL_STAGE.BREAKER, wrapper]], { name: "kota_search" });
  return {
    clock,
    circuits,
    events,
    ran: () => ran,
    set: (m: typeof mode) => (mode = m),
    call: () => p.callTool("kota_search", {}),
  };
}

async function failTimes(t: ReturnType<typeof setup>, n: number): Promise<ToolObservation[]> {
  t.set("fail");
  const out: ToolObservation[] = [];
  for (let i = 0; i < n; i++) out.push(await t.call());
  return out;
}

describe("circuit breaker", () => {
  it("opens after N consecutive failures and then fails fast with a structured circuit_open error", async () => {
    const t = setup();
    await failTimes(t, 3);
    expect(t.ran()).toBe(3);
    expect(t.events).toEqual(["kota_search:open"]);
    t.set("ok");
    const obs = await t.call();
    expect(t.ran()).toBe(3);
    expect(obs.status).toBe("ERROR");
    if (obs.status !== "ERROR") return;
    expect(obs.error.category).toBe("circuit_open");
    expect(obs.error.code).toBe("GOV_CIRCUIT_OPEN");
    expect(obs.error.retryAfterMs).toBe(30_000);
    expect(contentText(obs.content)).toMatch(/kota_search is paused after 3 failures \(last: network\).*in 30s/);
    expect(obs.error.agentMessage).toMatch(/Do not call kota_search again in 30s/);
  });

  it("resets the count on a success", async () => {
    const t = setup();
    await failTimes(t, 2);
    t.set("ok");
    await t.call();
    await failTimes(t, 2);
    expect(t.circuits.get("kota_search")!.state).toBe("closed");
  });

  it("does not count the model's own mistakes (invalid input)", async () => {
    const t = setup();
    t.set("invalid");
    for (let i = 0; i < 5; i++) await t.call();
    expect(t.circuits.get("kota_search")!.state).toBe("closed");
  });

  it("after the cool-down lets one probe through; its success closes the circuit", async () => {
    const t = setup();
    await failTimes(t, 3);
    await t.clock.advance(29_999);
    t.set("ok");
    expect((await t.call()).status).toBe("ERROR");
    await t.clock.advance(1);
    expect((await t.call()).status).toBe("SUCCESS");
    expect(t.ran()).toBe(4);
    expect(t.circuits.get("kota_search")!.state).toBe("closed");
    expect(t.events).toEqual(["kota_search:open", "kota_search:closed"]);
  });

  it("half-open admits exactly one probe while it runs; the others fail fast", async () => {
    const clock = new ManualClock();
    let release: () => void = () => {};
    let failing = true;
    let ran = 0;
    const { wrapper } = breakerWrapper(opts(), { clock });
    const p = pipelineWith(clock, async () => {
      ran++;
      if (failing) throw sysError("ECONNRESET");
      await new Promise<void>((r) => (release = r));
      return ok();
    }, [[TOOL_STAGE.BREAKER, wrapper]]);
    for (let i = 0; i < 3; i++) await p.callTool("tool", {});
    await clock.advance(30_000);
    failing = false;
    const probe = p.callTool("tool", {});
    const other = await p.callTool("tool", {});
    expect(other.status).toBe("ERROR");
    if (other.status === "ERROR") expect(contentText(other.content)).toMatch(/trial call in flight/);
    release();
    expect((await probe).status).toBe("SUCCESS");
    expect(ran).toBe(4);
  });

  it("a failed probe opens the circuit for another cool-down", async () => {
    const t = setup();
    await failTimes(t, 3);
    await t.clock.advance(30_000);
    await failTimes(t, 1);
    expect(t.ran()).toBe(4);
    t.set("ok");
    expect((await t.call()).status).toBe("ERROR");
    await t.clock.advance(30_000);
    expect((await t.call()).status).toBe("SUCCESS");
  });

  it("opens on a failure ratio over a full window", async () => {
    const t = setup({ failureThreshold: 100, failureRatio: 0.5, ratioWindow: 4 });
    for (const m of ["ok", "fail", "ok"] as const) {
      t.set(m);
      await t.call();
    }
    expect(t.circuits.get("kota_search")!.state).toBe("closed");
    // The fourth call fills the window: 2 of 4 failed, which meets the 0.5 ratio.
    t.set("fail");
    await t.call();
    expect(t.circuits.get("kota_search")!.state).toBe("open");
  });

  it("with scope server, tools tagged with the same server share one circuit", async () => {
    const clock = new ManualClock();
    const { wrapper, circuits } = breakerWrapper(opts({ scope: "server", failureThreshold: 2 }), { clock });
    const p = pipelineWith(
      clock,
      async () => {
        throw sysError("ECONNRESET");
      },
      [[TOOL_STAGE.BREAKER, wrapper]],
      { name: "a", tags: ["server:kota"] },
    );
    await p.callTool("a", {});
    await p.callTool("a", {});
    expect([...circuits.keys()]).toEqual(["kota"]);
    expect(circuits.get("kota")!.state).toBe("open");
  });

  it("reads the server from the MCP bridge's mcp:<server> tag, else groups by the owning plugin", () => {
    const info = (tags: string[]) => ({ name: "t", description: "", annotations: {}, tags, owner: "governor:kota" });
    const o = opts({ scope: "server" });
    expect(circuitKey(o, info(["mcp", "mcp:everything"]))).toBe("everything");
    expect(circuitKey(o, info(["kota"]))).toBe("governor:kota");
    expect(circuitKey(opts(), info(["mcp:everything"]))).toBe("t");
  });

  it("can be switched off per tool", async () => {
    const t = setup({ perTool: { kota_search: { enabled: false } } });
    await failTimes(t, 10);
    expect(t.ran()).toBe(10);
    expect(t.circuits.size).toBe(0);
  });

  it("is a plugin with config key breaker", () => {
    expect(breaker().defaults).toMatchObject({ enabled: true, failureThreshold: 5, cooldownMs: 30_000, scope: "tool" });
  });
});
