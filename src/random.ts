/**
 * The only door to chance. Algorithms that jitter take a `Random`, so a seed
 * makes every run reproducible.
 */
export interface Random {
  /** A uniformly distributed number in [0, 1). */
  next(): number;
}

/** `Math.random`, for production use. */
export const systemRandom: Random = { next: () => Math.random() };

/** A uniform number in [low, high). */
export function uniform(random: Random, low: number, high: number): number {
  return low + (high - low) * random.next();
}

/**
 * A fast seeded generator (sfc32, seeded through splitmix32). The same seed
 * always yields the same sequence; strings are hashed to a seed.
 */
export function seededRandom(seed: number | string): Random {
  let s = typeof seed === 'string' ? hashString(seed) : seed >>> 0;
  const split = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  return {
    next(): number {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return (t >>> 0) / 4294967296;
    },
  };
}

/** FNV-1a hash of a string, used to turn string seeds into numbers. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}
