import type { Backoff } from '../backoff/backoff.js';
import { fullJitter } from '../backoff/full-jitter.js';
import { check, flag, hasMethods, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import { REACTIONS, type Signal } from '../signal.js';

const readOptions = defineOptions('retry', {
  /**
   * Attempts per request, the first included; 1 disables retries.
   * @default 6
   */
  maxAttempts: number(6, { min: 1, integer: true }),
  /**
   * Attempts, the first included, for a request that nothing answers: the
   * connection is refused, the host unreachable or its name unknown
   * (`refused`). Retrying a closed port for long rarely helps, so it fails
   * in well under a second; at most `maxAttempts`.
   * @default 2
   */
  refusedAttempts: number(2, { min: 1, integer: true }),
  /**
   * Delay before retrying a failure that is not a rate signal (server error,
   * reset, refused, timeout). Rate signals (429, 503) are not slept on per
   * request: the scope's controller paces every request, retries included,
   * and honours Retry-After for all of them at once.
   * @default fullJitter({ baseMs: 500, capMs: 30000 })
   */
  backoff: check(
    'a Backoff such as fullJitter()',
    hasMethods<Backoff>('delayMs'),
    fullJitter({ baseMs: 500, capMs: 30_000 }),
  ),
  /**
   * A Retry-After longer than this fails fast with a
   * `RetryAfterTooLongError` instead of sleeping for hours. It also bounds
   * how long a request waits for a pause its scope already knows of (another
   * response's Retry-After or spent quota, an open breaker): one that would
   * wait longer fails at once with a `ScopePausedError` saying until when and why.
   * @default 120000
   */
  maxRetryAfterMs: number(120_000, { min: 0, infinite: true }),
  /**
   * Retry non-idempotent methods (POST, PATCH) on every retryable signal.
   * By default they are retried only when the server provably did not
   * process them: a 429, or a refused connection.
   * @default false
   */
  retryUnsafe: flag(false),
});

/** Options for retrying a request. */
export interface RetryOptions extends OptionsOf<typeof readOptions> {}

/** {@link RetryOptions} validated, defaults applied. */
export type RetryPolicy = Required<RetryOptions>;

/** Validates retry options and applies the defaults; errors name the option, value and expectation. */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const settings = readOptions(options);
  return {
    ...settings,
    refusedAttempts: Math.min(settings.refusedAttempts, settings.maxAttempts),
  };
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Whether `signal` may be retried for a request with `method` (before budgets and attempt caps). */
export function isRetryable(signal: Signal, method: string, policy: RetryPolicy): boolean {
  if (!REACTIONS[signal.kind].retry) return false;
  if (policy.retryUnsafe || IDEMPOTENT.has(method.toUpperCase())) return true;
  return signal.kind === 'refused' || signal.status === 429;
}

/** The most attempts a request ending on `signal` gets, and the retry option that sets it. */
export function attemptCap(
  signal: Signal,
  policy: RetryPolicy,
): { attempts: number; option: 'refusedAttempts' | 'maxAttempts' } {
  return signal.kind === 'refused'
    ? { attempts: policy.refusedAttempts, option: 'refusedAttempts' }
    : { attempts: policy.maxAttempts, option: 'maxAttempts' };
}

/** Whether the scope controller already paces the retry of `signal` (so no per-request sleep). */
export function isRateSignal(signal: Signal): boolean {
  const speed = REACTIONS[signal.kind].speed;
  return signal.kind === 'throttled' || signal.kind === 'overloaded' || speed === 'cut-hard';
}
