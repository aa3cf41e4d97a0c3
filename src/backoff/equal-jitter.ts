import { defineOptions } from '../option-spec.js';
import { uniform } from '../random.js';
import { BACKOFF_SPEC, type Backoff, type BackoffOptions, exponentialWindow } from './backoff.js';

const readOptions = defineOptions<BackoffOptions>()('equalJitter', BACKOFF_SPEC);

/**
 * Equal jitter: half the exponential window, plus a uniform share of the other
 * half — a delay in `[window / 2, window)`. It guarantees a minimum wait at the
 * cost of spreading retries over only half the window.
 */
export function equalJitter(options: BackoffOptions = {}): Backoff {
  const resolved = readOptions(options);
  return {
    name: 'equal-jitter',
    delayMs(attempt, random) {
      const half = exponentialWindow(resolved, attempt) / 2;
      return half + uniform(random, 0, half);
    },
  };
}
