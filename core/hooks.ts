import { AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import { PipelineError, PluginError } from "./errors.ts";
import { DEFAULT_STAGE } from "./stages.ts";

/** How a tap names itself and where it runs. `before` is deliberately absent: order by stage. */
export interface TapOptions {
  /** Plugin name, namespaced (`governor:retry`, `acme:audit`). Appears in errors and status. */
  name: string;
  /**
   * Position among the hook's taps: the hook's stage constant (`TOOL_STAGE`, `RESULT_STAGE`, ... in
   * core/stages.ts) plus or minus an offset. Default {@link DEFAULT_STAGE} (500). On toolCall, toolGate,
   * toolResult and context another plugin's stage is taken (GOV_TAP_TIE); elsewhere equal stages keep tap order.
   */
  stage?: number;
}

/** A registered tap, as `/governor status` lists it. */
export interface TapRecord {
  /** The plugin that tapped. */
  name: string;
  /** Its stage (the default filled in). */
  stage: number;
}

/** Receives a plugin failure that was isolated (the hook went on without that tap). */
export type PluginErrorSink = (error: PluginError) => void;

interface HookHost {
  readonly sealed: boolean;
  readonly reportPluginError: PluginErrorSink;
}

function normalize(options: TapOptions | string): Required<TapOptions> {
  const o = typeof options === "string" ? { name: options } : options;
  if (!o || typeof o.name !== "string" || o.name.length === 0) {
    throw new PipelineError("GOV_TAP_NAME", "tap options need a non-empty plugin name, e.g. { name: 'acme:audit', stage: TOOL_STAGE.OBSERVE }");
  }
  if ("before" in (o as object)) {
    throw new PipelineError(
      "GOV_TAP_BEFORE",
      `plugin "${o.name}": 'before' is not supported; order taps with a stage number (TOOL_STAGE, RESULT_STAGE, ... in core/stages.ts)`,
    );
  }
  const stage = o.stage ?? DEFAULT_STAGE;
  if (!Number.isFinite(stage)) throw new PipelineError("GOV_TAP_STAGE", `plugin "${o.name}": stage must be a finite number, got ${String(stage)}`);
  return { name: o.name, stage };
}

/** How a hook treats two plugins on one stage: `tie-error` where order changes what runs. */
export type StageTies = "apply-order" | "tie-error";

abstract class GovernedHook {
  protected readonly records: TapRecord[] = [];
  constructor(
    protected readonly host: HookHost,
    /** The hook's name, as errors report it. */
    readonly hookName: string,
    /** `tie-error`: a second plugin on a stage already taken throws GOV_TAP_TIE (one plugin may reuse its own). */
    private readonly ties: StageTies = "apply-order",
  ) {}

  protected admit(options: TapOptions | string): Required<TapOptions> {
    const o = normalize(options);
    if (this.host.sealed) {
      throw new PipelineError("GOV_SEALED", `plugin "${o.name}" tapped "${this.hookName}" after the pipeline was sealed; tap inside your plugin's apply()`);
    }
    const taken = this.ties === "tie-error" ? this.records.find((r) => r.stage === o.stage && r.name !== o.name) : undefined;
    if (taken) {
      throw new PipelineError(
        "GOV_TAP_TIE",
        `plugins "${taken.name}" and "${o.name}" both tap "${this.hookName}" at stage ${o.stage}, which leaves their order to the order they are applied in; give one of them its own stage (the named stages are in core/stages.ts)`,
      );
    }
    this.records.push({ name: o.name, stage: o.stage });
    return o;
  }

  /** Taps in run order (a stable sort by stage). */
  taps(): TapRecord[] {
    return this.records
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.stage - b.r.stage || a.i - b.i)
      .map(({ r }) => r);
  }
}

/**
 * A waterfall over a value: each tap receives the latest value and returns the next one (or undefined
 * to keep it). A tap that throws is reported as a {@link PluginError} and skipped: the value it got
 * flows on unchanged, so one broken plugin never breaks the agent.
 */
export class TransformHook<T, I> extends GovernedHook {
  private readonly hook = new AsyncSeriesWaterfallHook<[T, I]>(["value", "info"]);

  /** Adds a transform: it returns the next value, or undefined to keep the one it got. */
  tap(options: TapOptions | string, fn: (value: T, info: I) => T | undefined | Promise<T | undefined>): void {
    const o = this.admit(options);
    const { reportPluginError } = this.host;
    const hookName = this.hookName;
    this.hook.tapPromise({ name: o.name, stage: o.stage }, async (value, info) => {
      try {
        const next = await fn(value, info);
        return next === undefined ? value : next;
      } catch (error) {
        reportPluginError(new PluginError(o.name, hookName, error));
        return value;
      }
    });
  }

  /** Runs every tap in stage order. Never rejects for a plugin's fault. */
  run(value: T, info: I): Promise<T> {
    if (this.records.length === 0) return Promise.resolve(value);
    return this.hook.promise(value, info);
  }
}

/** Lifecycle notification (session start, shutdown). Taps run in stage order; failures are isolated. */
export class LifecycleHook<I> extends GovernedHook {
  private readonly hook = new AsyncSeriesHook<[I]>(["info"]);

  /** Adds a handler; the hook waits for it before the next one runs. */
  tap(options: TapOptions | string, fn: (info: I) => void | Promise<void>): void {
    const o = this.admit(options);
    const { reportPluginError } = this.host;
    const hookName = this.hookName;
    this.hook.tapPromise({ name: o.name, stage: o.stage }, async (info) => {
      try {
        await fn(info);
      } catch (error) {
        reportPluginError(new PluginError(o.name, hookName, error));
      }
    });
  }

  /** Runs every handler in stage order. Never rejects for a plugin's fault. */
  run(info: I): Promise<void> {
    return this.hook.promise(info);
  }
}

/** Observers: see every event, cannot steer. A throwing observer is reported once per throw and ignored. */
export class ObserverHook<E> extends GovernedHook {
  private readonly hook = new SyncHook<[E]>(["event"]);
  private reporting = false;

  /** Adds an observer (synchronous; what it returns is ignored). */
  tap(options: TapOptions | string, fn: (event: E) => void): void {
    const o = this.admit(options);
    const hookName = this.hookName;
    this.hook.tap({ name: o.name, stage: o.stage }, (event) => {
      try {
        fn(event);
      } catch (error) {
        // An observer that throws on the plugin_error event itself must not recurse forever.
        if (this.reporting) return;
        this.reporting = true;
        try {
          this.host.reportPluginError(new PluginError(o.name, hookName, error));
        } finally {
          this.reporting = false;
        }
      }
    });
  }

  /** Hands `event` to every observer in stage order. */
  call(event: E): void {
    if (this.records.length > 0) this.hook.call(event);
  }
}

/**
 * The onion hook for tool calls: each tap is a wrapper `(next, tool) => handler`. At seal the
 * wrappers are composed once per tool; a LOWER stage is OUTER (sees the call first). A wrapper may
 * return `next` itself to stay out of a tool's chain at no per-call cost.
 */
export class WrapHook<H, Info> extends GovernedHook {
  private readonly wrappers: Array<{ o: Required<TapOptions>; fn: (next: H, info: Info) => H }> = [];

  /** Adds a wrapper `(next, tool) => handler`, composed once per tool at seal. */
  tap(options: TapOptions | string, fn: (next: H, info: Info) => H): void {
    const o = this.admit(options);
    this.wrappers.push({ o, fn });
  }

  /**
   * Composes the wrappers around `terminal` for one tool. `guard(name, inner)` lets the pipeline
   * put its next-at-most-once check between layers; `blame(name, handler)`, when given, wraps each
   * layer a plugin adds so what it throws names that plugin. Built on tapable's SyncWaterfallHook:
   * taps are added innermost first so the waterfall's last result is the outermost handler.
   */
  compose(terminal: H, info: Info, guard: (pluginName: string, inner: H) => H, blame?: (pluginName: string, handler: H) => H): H {
    const hook = new SyncWaterfallHook<[H, Info]>(["handler", "info"]);
    const ordered = this.wrappers.map((w, i) => ({ w, i })).sort((a, b) => a.w.o.stage - b.w.o.stage || a.i - b.i);
    for (let k = ordered.length - 1; k >= 0; k--) {
      const { o, fn } = ordered[k]!.w;
      hook.tap(o.name, (inner, toolInfo) => {
        const guarded = guard(o.name, inner);
        let wrapped: H;
        try {
          wrapped = fn(guarded, toolInfo);
        } catch (error) {
          this.host.reportPluginError(new PluginError(o.name, this.hookName, error));
          return inner;
        }
        if (typeof wrapped !== "function") {
          this.host.reportPluginError(new PluginError(o.name, this.hookName, new TypeError("wrapper must return a handler function")));
          return inner;
        }
        if (wrapped === guarded) return inner;
        return blame ? blame(o.name, wrapped) : wrapped;
      });
    }
    return hook.call(terminal, info);
  }
}
