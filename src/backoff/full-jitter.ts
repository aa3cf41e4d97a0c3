import { defineOptions } from '../option-spec.js';
import { uniform } from '../random.js';
import { BACKOFF_SPEC, type Backoff, type BackoffOptions, exponentialWindow } from './backoff.js';

const readOptions = defineOptions<BackoffOptions>()('fullJitter', BACKOFF_SPEC);

/**
 * Full jitter: a uniform delay in `[0, window)`, where the window doubles per
 * retry up to the cap. It scatters clients that failed together the most
 * widely for the least waiting, which is why it is the default: when ten
 * workers throttled at once retry in an 8 s window, the busiest 0.1 s slot
 * holds ~1.46 retries on average, against all ten without jitter.
 */
export function fullJitter(options: BackoffOptions = {}): Backoff {
  const resolved = readOptions(options);
  return {
    name: 'full-jitter',
    delayMs: (attempt, random) => uniform(random, 0, exponentialWindow(resolved, attempt)),
  };
}

/** The default strategy: {@link fullJitter} with base 1 s, factor 2, cap 60 s. */
export const defaultBackoff: Backoff = fullJitter();
