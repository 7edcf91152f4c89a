/**
 * A call a person approved runs with the arguments they were shown, or not at all. pi hands every
 * `tool_call` handler the same arguments object, lets each change it (handlers of extensions loaded
 * later run after pi-governor's, and one that kept the object can change it at any time) and runs
 * the tool with it, unchecked. So once a gate stage says what was approved (`approvedArgs`), the
 * object is frozen, nested values included: a later change throws in the code that tries it (pi then
 * refuses the call with that error) or, outside strict mode, is ignored. Then it is compared with
 * what was approved, which catches a change made before the freeze.
 */

/** Freezes `input` (every nested object and array too); a refusal reason when it no longer matches `approvedArgs`. */
export function holdApproved(toolName: string, input: unknown, approvedArgs: string): string | undefined {
  // pi's arguments are plain data (parsed JSON, cloned): a getter was put there to answer one way
  // when shown and another when run.
  if (!deepFreeze(input))
    return `The arguments of this ${toolName} call are not plain data (another extension put a getter in them), so what runs cannot be held to what the user approved; it did not run.`;
  let now: string | undefined;
  try {
    now = JSON.stringify(input ?? {});
  } catch {
    now = undefined;
  }
  if (now === approvedArgs) return undefined;
  return `The arguments of this ${toolName} call changed after the user approved them (another extension changed them), so it did not run. Ask the user how to go on.`;
}

/** Object.freeze on `value` and everything reachable from it (cycles visited once); false when a property is a getter or setter. */
function deepFreeze(value: unknown, seen = new Set<object>()): boolean {
  if (typeof value !== "object" || value === null || seen.has(value)) return true;
  seen.add(value);
  let plain = true;
  for (const key of Reflect.ownKeys(value)) {
    const property = Object.getOwnPropertyDescriptor(value, key);
    if (!property || !("value" in property)) plain = false;
    else if (!deepFreeze(property.value, seen)) plain = false;
  }
  Object.freeze(value);
  return plain;
}
