/**
 * The fault dice: mulberry32, a 32-bit seeded PRNG. Small and fast, and the same seed gives the
 * same sequence on every platform, so a chaos run with `seed` set is reproducible.
 */

/** Uniform numbers in [0, 1) from `seed` (an unsigned 32-bit integer). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [min, max] (both inclusive) from `random`. */
export function between(random: () => number, min: number, max: number): number {
  return max <= min ? min : min + Math.floor(random() * (max - min + 1));
}
