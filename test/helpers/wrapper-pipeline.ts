/**
 * Shared test scaffolding for the resilience plugins: a pipeline with one controllable tool.
 */
import { Type } from "typebox";
import { Pipeline, textContent, type Clock, type ToolAnnotations, type ToolCallContext, type ToolExecuteResult, type ToolWrapper } from "pi-governor";

/** A tool body: gets the call, returns a result or throws. */
export type Body = (call: ToolCallContext) => Promise<ToolExecuteResult>;

/** A sealed pipeline with tool `name` running `body`, wrapped by `wrappers` at their stages. */
export function pipelineWith(
  clock: Clock,
  body: Body,
  wrappers: Array<[stage: number, ToolWrapper]>,
  options: { name?: string; annotations?: ToolAnnotations; tags?: string[] } = {},
): Pipeline {
  const p = new Pipeline({ clock });
  p.registerTool("test:tools", {
    name: options.name ?? "tool",
    description: "test tool",
    parameters: Type.Object({}),
    ...(options.annotations ? { annotations: options.annotations } : {}),
    ...(options.tags ? { tags: options.tags } : {}),
    execute: body,
  });
  wrappers.forEach(([stage, w], i) => p.hooks.toolCall.tap({ name: `test:w${i}`, stage }, w));
  p.seal();
  return p;
}

/** A result with one text block. */
export const ok = (text = "ok"): ToolExecuteResult => ({ content: textContent(text) });

/** A promise that never settles (a hung server). */
export const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** A Node system error with a code, as sockets throw them. */
export const sysError = (code: string): Error => Object.assign(new Error(`${code} from the server`), { code });
