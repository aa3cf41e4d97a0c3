import { fullJitter } from '../../backoff/full-jitter.js';
import { parseRetryAfter } from '../../headers/retry-after.js';
import { fixedPool, type Strategy } from './strategy.js';

/**
 * Fixed concurrency (the ceiling) with the textbook retry: full-jitter
 * exponential backoff, never shorter than the server's Retry-After.
 */
export const fixedJitter: Strategy = {
  name: 'fixed+jitter',
  description:
    'fixed concurrency at the ceiling, full-jitter backoff 0–1 s × 2^n (cap 60 s), at least Retry-After',
  run(context) {
    const backoff = fullJitter({ baseMs: 1000, capMs: 60_000 });
    return fixedPool(context, () => {
      let previous: number | undefined;
      return (attempt, exchange) => {
        const hint =
          parseRetryAfter(exchange?.headers['retry-after'], { date: exchange?.headers.date }) ?? 0;
        previous = Math.max(hint, backoff.delayMs(attempt, context.random, previous));
        return previous;
      };
    });
  },
};
