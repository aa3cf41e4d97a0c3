import { defineOptions } from '../option-spec.js';
import { uniform } from '../random.js';
import { BACKOFF_SPEC, type Backoff, type BackoffOptions } from './backoff.js';

/** Options of {@link decorrelatedJitter}; it has no fixed growth factor. */
export type DecorrelatedJitterOptions = Omit<BackoffOptions, 'factor'>;

const { factor: _, ...spec } = BACKOFF_SPEC;
const readOptions = defineOptions<DecorrelatedJitterOptions>()('decorrelatedJitter', spec);

/**
 * Decorrelated jitter: each delay is drawn from `[baseMs, 3 × previous)`,
 * capped at `capMs`, starting from `previous = baseMs`. It grows by about
 * 1.5× per retry on average, and each client's sequence wanders on its own. The attempt number is not used; the caller passes the previous delay
 * (see {@link Backoff}). Delays stay within `[baseMs, capMs]`.
 */
export function decorrelatedJitter(options: DecorrelatedJitterOptions = {}): Backoff {
  const { baseMs, capMs } = readOptions(options);
  return {
    name: 'decorrelated-jitter',
    delayMs(_attempt, random, previousMs) {
      const previous =
        previousMs !== undefined && previousMs > baseMs ? Math.min(previousMs, capMs) : baseMs;
      return Math.min(capMs, uniform(random, baseMs, previous * 3));
    },
  };
}
