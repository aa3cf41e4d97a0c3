import { classify } from '../classify.js';
import type { Clock } from '../clock.js';
import type { ScopeRegistry } from '../controller/registry.js';
import { RetryAfterTooLongError } from '../errors.js';
import type { Random } from '../random.js';
import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import { isRateSignal, isRetryable, type RetryPolicy } from './retry-policy.js';

/** Shared machinery for running requests under control. */
export interface AttemptContext {
  /** The scopes' controllers. */
  registry: ScopeRegistry;
  /** Retry settings. */
  retry: RetryPolicy;
  /** Time source for backoff sleeps. */
  clock: Clock;
  /** Randomness for backoff jitter. */
  random: Random;
}

/** One request, as the attempt loop needs to see it. */
export interface AttemptSpec<T> {
  /** Where the request goes (for error messages). */
  url: string;
  /** HTTP method, for the idempotency rule. */
  method: string;
  /** The scopes that must admit every attempt. */
  scopes: string | readonly string[];
  /** Sends one attempt. */
  send(signal: AbortSignal | undefined): Promise<T>;
  /** Classifies a result that arrived. */
  classify(result: T): Signal;
  /** Per-phase timings of a result, for the event log. */
  timings?(result: T): PhaseTimings | undefined;
  /** Frees a result that will not be returned (drains its body before a retry). */
  discard?(result: T): Promise<void> | void;
  /** The caller's cancellation. */
  signal?: AbortSignal;
}

/** How a controlled request ended. */
export interface AttemptOutcome<T> {
  /** The last result, when the last attempt got one. */
  result?: T;
  /** The last attempt's error, when it got no result. */
  error?: unknown;
  /** The last attempt's signal. */
  signal: Signal;
  /** Attempts made, the first included. */
  attempts: number;
}

/**
 * Runs a request through its scopes' controllers until it succeeds, fails in
 * a way that must not be retried, or runs out of attempts or retry budget.
 * Every attempt is admitted (limit, rate, breaker) and reported back, so
 * retries are paced with all other traffic instead of by private sleeps.
 * A caller's abort rejects with the abort reason; a Retry-After longer than
 * the policy allows rejects with {@link RetryAfterTooLongError}.
 */
export async function runAttempts<T>(
  context: AttemptContext,
  spec: AttemptSpec<T>,
): Promise<AttemptOutcome<T>> {
  const { registry, retry } = context;
  let previousDelay: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const permit = await registry.admit(
      spec.scopes,
      spec.signal ? { signal: spec.signal } : undefined,
    );
    const outcome = await attemptOnce(spec, attempt);
    if (outcome.signal === undefined) {
      permit.release();
      throw outcome.error;
    }
    const timings = outcome.result === undefined ? undefined : spec.timings?.(outcome.result);
    permit.report(outcome.signal, timings ? { timings } : undefined);
    const budget = registry.get(firstScope(spec.scopes))?.retryBudget;
    if (attempt === 1) budget?.deposit();
    const done = outcome as AttemptOutcome<T>;
    if (!shouldRetry(done, spec.method, retry) || !(budget?.withdraw() ?? true)) return done;
    const retryAfterMs = done.signal.retryAfterMs ?? 0;
    if (retryAfterMs > retry.maxRetryAfterMs) {
      await discard(spec, done);
      throw new RetryAfterTooLongError(spec.url, retryAfterMs, retry.maxRetryAfterMs);
    }
    await discard(spec, done);
    if (isRateSignal(done.signal)) continue; // the controller paces it, Retry-After included
    previousDelay = Math.max(
      retry.backoff.delayMs(attempt - 1, context.random, previousDelay),
      retryAfterMs,
    );
    await context.clock.sleep(previousDelay, spec.signal);
  }
}

type Attempted<T> = Omit<AttemptOutcome<T>, 'signal'> & { signal: Signal | undefined };

async function attemptOnce<T>(spec: AttemptSpec<T>, attempts: number): Promise<Attempted<T>> {
  try {
    const result = await spec.send(spec.signal);
    return { result, signal: spec.classify(result), attempts };
  } catch (error) {
    const signal = spec.signal?.aborted ? undefined : classify(error);
    return { error, signal, attempts };
  }
}

function shouldRetry<T>(outcome: AttemptOutcome<T>, method: string, retry: RetryPolicy): boolean {
  return outcome.attempts < retry.maxAttempts && isRetryable(outcome.signal, method, retry);
}

async function discard<T>(spec: AttemptSpec<T>, outcome: AttemptOutcome<T>): Promise<void> {
  if (outcome.result !== undefined) await spec.discard?.(outcome.result);
}

function firstScope(scopes: string | readonly string[]): string {
  return typeof scopes === 'string' ? scopes : ([...scopes].sort()[0] ?? '');
}
