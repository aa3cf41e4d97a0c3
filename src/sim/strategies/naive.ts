import { noJitter } from '../../backoff/no-jitter.js';
import {
  isRetryableStatus,
  MAX_ATTEMPTS,
  runWorkers,
  type Strategy,
  tryExchange,
} from './strategy.js';

/**
 * The recipe reference 000 starts from: a fixed pool of workers, each
 * retrying its own 429s with exponential backoff and no jitter, ignoring
 * Retry-After. Workers that fail together sleep together and return as a herd.
 */
export const naive: Strategy = {
  name: 'naive',
  description:
    'one request per worker, per-worker backoff 1 s × 2^n (cap 60 s), no jitter, Retry-After ignored',
  run(context) {
    const backoff = noJitter({ baseMs: 1000, capMs: 60_000 });
    return runWorkers(context, Math.min(context.workers, context.maxConcurrency), async (path) => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const exchange = await tryExchange(context, path);
        if (!isRetryableStatus(exchange?.status ?? 0)) return;
        await context.clock.sleep(backoff.delayMs(attempt, context.random), context.work.stop);
      }
    });
  },
};
