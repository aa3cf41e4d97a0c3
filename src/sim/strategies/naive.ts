import { noJitter } from '../../backoff/no-jitter.js';
import { fixedPool, type Strategy } from './strategy.js';

/**
 * The recipe the demo server's write-up starts from (docs/server-models.md): a fixed pool of
 * workers, each retrying its own 429s with exponential backoff and no jitter, ignoring Retry-After.
 * Workers that fail together sleep together and return as a herd.
 */
export const naive: Strategy = {
  name: 'naive',
  description:
    'fixed pool at the ceiling, per-worker backoff 1 s × 2^n (cap 60 s), no jitter, Retry-After ignored',
  run(context) {
    const backoff = noJitter({ baseMs: 1000, capMs: 60_000 });
    return fixedPool(context, () => (attempt) => backoff.delayMs(attempt, context.random));
  },
};
