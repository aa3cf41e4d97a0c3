import { custom, number } from '../option-rules.js';
import type { Random } from '../random.js';

/**
 * A retry backoff strategy: a pure function from the retry attempt to a
 * delay. Randomness arrives as an injected {@link Random}, so a seed makes a
 * run reproducible. Strategies without memory ignore `previousMs`; decorrelated
 * jitter, whose next delay grows from the last one, reads it — the caller
 * carries that state, so every strategy stays a plain function:
 *
 * ```ts
 * let previous: number | undefined;
 * for (let attempt = 0; attempt < maxRetries; attempt++) {
 *   const delay = backoff.delayMs(attempt, random, previous);
 *   previous = delay;
 *   await clock.sleep(delay, signal);
 * }
 * ```
 */
export interface Backoff {
  /** The strategy's name (`full-jitter`, `equal-jitter`, `decorrelated-jitter`, `no-jitter`). */
  readonly name: string;
  /**
   * The delay in ms before retry number `attempt` (0 for the first retry;
   * negative or NaN count as 0), given the delay this strategy returned for
   * the previous retry (omitted on the first). Always finite, in `[0, capMs]`.
   */
  delayMs(attempt: number, random: Random, previousMs?: number): number;
}

/** Options of the exponential strategies: the window before retry `n` is `min(capMs, baseMs × factorⁿ)`. */
export interface BackoffOptions {
  /**
   * The window before the first retry, in ms.
   * @default 1000
   */
  baseMs?: number;
  /**
   * How much the window grows per retry.
   * @default 2
   */
  factor?: number;
  /**
   * The largest delay, in ms; must be at least `baseMs`.
   * @default 60_000
   */
  capMs?: number;
}

/** Validated backoff options with defaults applied. */
export type ResolvedBackoffOptions = Required<BackoffOptions>;

/** The rules of {@link BackoffOptions}: each strategy builds its reader on them. */
export const BACKOFF_SPEC = {
  baseMs: number(1000, { min: 1 }),
  factor: number(2, { min: 1 }),
  capMs: custom((value = 60_000, fail, earlier): number => {
    const baseMs = earlier.baseMs as number;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < baseMs) {
      fail(`a number >= baseMs (${baseMs})`);
    }
    return value as number;
  }),
};

/** `min(capMs, baseMs × factor^attempt)`: the exponential window before retry `attempt`. */
export function exponentialWindow(options: ResolvedBackoffOptions, attempt: number): number {
  const exponent = attempt > 0 ? Math.min(Math.floor(attempt), Number.MAX_SAFE_INTEGER) : 0;
  return Math.min(options.capMs, options.baseMs * options.factor ** exponent);
}
