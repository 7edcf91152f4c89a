import { describe, expect, it, vi } from "vitest";
import { Type } from "typebox";
import { TOOL_STAGE, Pipeline, contentText, success, textContent, type ToolHandler, type ToolObservation } from "pi-governor";
import { testTool } from "pi-governor/testing";

function pipelineWithEcho(): Pipeline {
  const p = new Pipeline();
  p.registerTool("test:echo", {
    name: "echo",
    description: "echo",
    parameters: Type.Object({}),
    execute: async (call) => ({ content: textContent(String(call.args.text ?? "")) }),
  });
  return p;
}

const text = (obs: ToolObservation) => contentText(obs.content);

describe("tool-call onion", () => {
  it("composes wrappers with the lower stage outermost, symmetric on the way out", async () => {
    const p = pipelineWithEcho();
    const trace: string[] = [];
    const layer =
      (name: string): Parameters<Pipeline["hooks"]["toolCall"]["tap"]>[1] =>
      (next) =>
      async (call) => {
        trace.push(`${name}>`);
        const obs = await next(call);
        trace.push(`<${name}`);
        return obs;
      };
    p.hooks.toolCall.tap({ name: "t:timeout", stage: TOOL_STAGE.ATTEMPT }, layer("timeout"));
    p.hooks.toolCall.tap({ name: "t:observe", stage: TOOL_STAGE.OBSERVE }, layer("observe"));
    p.hooks.toolCall.tap({ name: "t:retry", stage: TOOL_STAGE.RETRY }, layer("retry"));
    p.seal();
    const obs = await p.callTool("echo", { text: "hi" });
    expect(text(obs)).toBe("hi");
    expect(trace).toEqual(["observe>", "retry>", "timeout>", "<timeout", "<retry", "<observe"]);
  });

  it("composes once at seal, not per call", async () => {
    const p = pipelineWithEcho();
    const factory = vi.fn((next: ToolHandler) => next);
    p.hooks.toolCall.tap("t:count", factory);
    p.seal();
    await p.callTool("echo", {});
    await p.callTool("echo", {});
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("rejects next() twice with the same call context but allows a fresh context per attempt", async () => {
    const p = pipelineWithEcho();
    p.hooks.toolCall.tap("t:bad-retry", (next) => async (call) => {
      await next(call);
      return next(call);
    });
    p.seal();
    const obs = await p.callTool("echo", { text: "x" });
    expect(obs.status).toBe("ERROR");
    expect(text(obs)).toMatch(/t:bad-retry.*called next\(\) twice/);

    const q = pipelineWithEcho();
    let attempts = 0;
    q.hooks.toolCall.tap({ name: "t:good-retry", stage: TOOL_STAGE.RETRY }, (next) => async (call) => {
      await next(call);
      return next({ ...call, attempt: call.attempt + 1 });
    });
    q.hooks.toolCall.tap({ name: "t:count", stage: TOOL_STAGE.ATTEMPT }, (next) => (call) => {
      attempts++;
      return next(call);
    });
    q.seal();
    expect((await q.callTool("echo", { text: "y" })).status).toBe("SUCCESS");
    expect(attempts).toBe(2);
  });

  it("turns a throwing transport and a throwing wrapper into ERROR observations, never rejections", async () => {
    const p = new Pipeline();
    p.registerTool("t:tools", {
      name: "broken",
      description: "throws ECONNRESET",
      parameters: Type.Object({}),
      execute: async () => {
        throw Object.assign(new Error("socket reset"), { code: "ECONNRESET" });
      },
    });
    p.registerTool("t:tools", testTool({ name: "fine", execute: async () => ({ content: textContent("ok") }) }));
    p.hooks.toolCall.tap("t:explodes", (next, tool) =>
      tool.name === "fine"
        ? async () => {
            throw new Error("wrapper bug");
          }
        : next,
    );
    p.seal();
    const broken = await p.callTool("broken", {});
    expect(broken.status === "ERROR" && broken.error.category).toBe("network");
    const fine = await p.callTool("fine", {});
    expect(fine.status === "ERROR" && fine.error.message).toMatch(/wrapper bug/);
  });

  it("lets a wrapper opt out of a tool at no per-call cost and skips ungoverned tools", async () => {
    const p = pipelineWithEcho();
    p.registerTool("t:tools", testTool({ name: "status", governed: false, execute: async () => ({ content: textContent("s") }) }));
    const seen: string[] = [];
    p.hooks.toolCall.tap("t:only-echo", (next, tool) => (tool.name === "echo" ? (call) => (seen.push(call.toolName), next(call)) : next));
    p.seal();
    await p.callTool("echo", {});
    await p.callTool("status", {});
    expect(seen).toEqual(["echo"]);
  });

  it("passes a returned observation from execute straight through", async () => {
    const p = new Pipeline();
    p.registerTool("t:tools", testTool({ name: "obs", execute: async () => success("obs", textContent("made"), { k: 1 }) }));
    p.seal();
    const obs = await p.callTool("obs", {});
    expect(obs.details).toEqual({ k: 1 });
  });
});

describe("seal", () => {
  it("refuses taps, tools and commands after seal with a message naming the plugin", () => {
    const p = pipelineWithEcho();
    p.seal();
    expect(() => p.hooks.context.tap("late:plugin", (m) => m)).toThrow(/late:plugin.*after the pipeline was sealed/);
    expect(() => p.hooks.toolCall.tap("late:plugin", (n) => n)).toThrow(/sealed/);
    expect(() => p.registerTool("late:plugin", testTool({ name: "x", execute: async () => ({ content: [] }) }))).toThrow(/sealed/);
    expect(() => p.registerCommand("late:plugin", "governor late", { description: "", handler: () => {} })).toThrow(/sealed/);
  });

  it("rejects bad tap options: no name, `before`, non-finite stage", () => {
    const p = new Pipeline();
    expect(() => p.hooks.context.tap("", (m) => m)).toThrow(/non-empty plugin name/);
    expect(() => p.hooks.context.tap({ name: "a:b", before: "x" } as never, (m) => m)).toThrow(/'before' is not supported/);
    expect(() => p.hooks.context.tap({ name: "a:b", stage: Number.NaN }, (m) => m)).toThrow(/finite/);
  });

  it("rejects duplicate tools and commands, naming the first owner", () => {
    const p = pipelineWithEcho();
    expect(() => p.registerTool("other:plugin", testTool({ name: "echo", execute: async () => ({ content: [] }) }))).toThrow(
      /already registered by "test:echo"/,
    );
    p.registerCommand("a:one", "kota pin", { description: "", handler: () => {} });
    expect(() => p.registerCommand("b:two", "kota pin", { description: "", handler: () => {} })).toThrow(/already registered by "a:one"/);
    expect(() => p.registerCommand("b:two", "Kota", { description: "", handler: () => {} })).toThrow(/root sub/);
  });

  it("explains an unknown tool", async () => {
    const p = pipelineWithEcho();
    p.seal();
    await expect(p.callTool("nope", {})).rejects.toThrow(/no governed tool "nope" \(known: echo\)/);
  });
});

describe("transform hooks", () => {
  it("isolate a throwing plugin: the value flows on and the error names plugin and hook", async () => {
    const p = new Pipeline();
    const errors: string[] = [];
    p.hooks.event.tap("t:observer", (e) => {
      if (e.type === "plugin_error") errors.push(e.error.message);
    });
    p.hooks.context.tap({ name: "t:first", stage: 1 }, (m) => [...m, { role: "user", content: "a" }]);
    p.hooks.context.tap({ name: "t:broken", stage: 2 }, () => {
      throw new Error("boom");
    });
    p.hooks.context.tap({ name: "t:third", stage: 3 }, (m) => [...m, { role: "user", content: "c" }]);
    p.seal();
    const out = await p.hooks.context.run([], { sessionId: "s" });
    expect(out.map((m) => m.content)).toEqual(["a", "c"]);
    expect(errors).toEqual(['plugin "t:broken" failed in hook "context": boom']);
  });

  it("keep the value when a tap returns undefined", async () => {
    const p = new Pipeline();
    p.hooks.beforeAgentStart.tap("t:noop", () => undefined);
    p.seal();
    expect(await p.hooks.beforeAgentStart.run([{ source: "x", text: "y" }], { prompt: "", cwd: "", sessionId: "" })).toEqual([{ source: "x", text: "y" }]);
  });

  it("isolate a throwing lifecycle tap and a throwing observer", async () => {
    const p = new Pipeline();
    const errors: string[] = [];
    let ran = false;
    p.hooks.event.tap({ name: "t:collect", stage: 0 }, (e) => {
      if (e.type === "plugin_error") errors.push(`${e.error.pluginName}/${e.error.hookName}`);
    });
    p.hooks.event.tap({ name: "t:bad-observer", stage: 1 }, () => {
      throw new Error("observer bug");
    });
    p.hooks.sessionStart.tap("t:bad-start", () => {
      throw new Error("start bug");
    });
    p.hooks.sessionStart.tap("t:good-start", () => {
      ran = true;
    });
    p.seal();
    await p.hooks.sessionStart.run({ sessionId: "s", cwd: "/", reason: "startup" });
    expect(ran).toBe(true);
    expect(errors).toContain("t:bad-start/sessionStart");
    expect(errors).toContain("t:bad-observer/event");
  });

  it("describe() lists taps per hook in run order", () => {
    const p = new Pipeline();
    p.hooks.context.tap({ name: "b:late", stage: 400 }, (m) => m);
    p.hooks.context.tap({ name: "a:early", stage: 100 }, (m) => m);
    expect(p.describe().context).toEqual([
      { name: "a:early", stage: 100 },
      { name: "b:late", stage: 400 },
    ]);
  });
});
