/**
 * Small builders for tool parameter schemas that cost few characters: every tool schema is sent
 * with every request, so `anyOf` of string constants (TypeBox's `Union` of `Literal`s, about 30
 * characters per value) is spelled as one JSON Schema `enum` (the value and its quotes).
 */
import { type TUnsafe, Type } from "typebox";

/** A string that is one of `values`: `{ type: "string", enum: [...] }`, validated by pi like any TypeBox schema. */
export function stringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}
