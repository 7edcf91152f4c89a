/** Argument rewriting for the budget plugin: hard caps and ladder rungs. Pure functions. */

/** One clamped argument, for the note to the model. */
export interface Clamp {
  arg: string;
  from: number;
  to: number;
}

/** Clamps numeric arguments above their cap. Returns the same object when nothing changed. */
export function clampArgs(
  args: Readonly<Record<string, unknown>>,
  caps: Readonly<Record<string, number>> | undefined,
): { args: Readonly<Record<string, unknown>>; clamps: Clamp[] } {
  if (!caps) return { args, clamps: [] };
  const clamps: Clamp[] = [];
  let out: Record<string, unknown> | undefined;
  for (const [arg, cap] of Object.entries(caps)) {
    const value = args[arg];
    if (typeof value === "number" && value > cap) {
      out ??= { ...args };
      out[arg] = cap;
      clamps.push({ arg, from: value, to: cap });
    }
  }
  return { args: out ?? args, clamps };
}

/**
 * Applies one ladder rung on top of `args`. A numeric value only ever lowers an argument (a rung
 * `limit: 10` leaves `limit: 5` alone); other values are set as given. Returns undefined when the
 * rung changes nothing, so the same request is never issued twice.
 */
export function applyRung(args: Readonly<Record<string, unknown>>, rung: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [arg, value] of Object.entries(rung)) {
    const current = args[arg];
    const next = typeof value === "number" && typeof current === "number" ? Math.min(current, value) : value;
    if (next !== current) {
      out ??= { ...args };
      out[arg] = next;
    }
  }
  return out;
}

/** `{ limit: 10, output: "paths" }` -> `limit=10, output="paths"`. */
export function describePatch(patch: Readonly<Record<string, unknown>>): string {
  return Object.entries(patch)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(", ");
}
