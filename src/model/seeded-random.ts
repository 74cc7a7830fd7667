/**
 * A small deterministic pseudo-random generator (mulberry32): numbers in [0, 1), the same sequence for
 * the same seed in every run. For choices that must not differ between runs (the validator's
 * labellings, the benchmarks' random plans); not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
