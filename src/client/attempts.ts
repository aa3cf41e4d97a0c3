import { classify } from '../classify.js';
import type { Clock } from '../clock.js';
import { capPause } from '../controller/pause-cap.js';
import type { Permit } from '../controller/permit.js';
import type { ScopeRegistry } from '../controller/registry.js';
import { withdrawFromAll } from '../controller/retry-budget.js';
import type { WaitOptions } from '../enforce/wait-queue.js';
import { abortReason, RetryAfterTooLongError } from '../errors.js';
import type { Random } from '../random.js';
import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import { onAbort } from '../util/abort-listener.js';
import { Cancellation, type CancelSource, signalOf } from './cancellation.js';
import { retryBudgets } from './retry-budgets.js';
import { attemptCap, isRateSignal, isRetryable, type RetryPolicy } from './retry-policy.js';

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
  /**
   * Longest pause one response may ask for, applied to what is reported, so
   * that every controller behind a permit (a fleet's too) sees it capped.
   */
  maxPauseMs?: number;
}

/** One request, as the attempt loop needs to see it. */
export interface AttemptSpec<T> {
  /** Where the request goes (for error messages). */
  url: string;
  /** HTTP method, for the idempotency rule. */
  method: string;
  /** The scopes that must admit every attempt. */
  scopes: string | readonly string[];
  /** Sends one attempt; `signal` is the caller's cancellation. */
  send(signal: CancelSource | undefined): Promise<T>;
  /** Classifies a result that arrived. */
  classify(result: T): Signal;
  /** Per-phase timings of a result, for the event log. */
  timings?(result: T): PhaseTimings | undefined;
  /** Frees a result that will not be returned (drains its body before a retry). */
  discard?(result: T): Promise<void> | void;
  /**
   * Takes over reporting a result's outcome: `report` must then be called
   * exactly once, when the result is finished with (its body read, cancelled
   * or failed), so the scope's slot stays busy while the body streams and the
   * round trip includes the download. A failure while streaming may replace
   * the signal. Without `hold`, the outcome is reported as soon as `send`
   * resolves. A discarded result must have reported by the time `discard`
   * resolves, so a retry sees the controller's reaction.
   */
  hold?(result: T, report: (finished: HeldOutcome) => void): void;
  /**
   * The caller's cancellation. A {@link Cancellation} makes its `AbortSignal`
   * only if the loop has to wait (for admission or a backoff).
   */
  signal?: CancelSource;
  /**
   * Stops waiting — for admission or a retry's backoff — without cancelling
   * an attempt in flight: a crawl's deadline ends the queue, not the requests
   * already sent. The loop then rejects with its reason.
   */
  admitSignal?: AbortSignal;
}

/** How a held result finished (see {@link AttemptSpec.hold}). */
export interface HeldOutcome {
  /** Replaces the signal classified at the response head (a reset or timeout mid-body). */
  signal?: Signal;
  /** Final per-phase timings. */
  timings?: PhaseTimings;
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
  /** Monotonic ms at which the first attempt was sent. */
  firstSentAt: number;
}

/**
 * Runs a request through its scopes' controllers until it succeeds, fails in
 * a way that must not be retried, or runs out of attempts or retry budget.
 * Every attempt is admitted (limit, rate, breaker) and reported back, so
 * retries are paced with all other traffic instead of by private sleeps.
 * A caller's abort rejects with the abort reason; a Retry-After longer than
 * the policy allows rejects with {@link RetryAfterTooLongError}.
 */
export function runAttempts<T>(
  context: AttemptContext,
  spec: AttemptSpec<T>,
): Promise<AttemptOutcome<T>> {
  const { options, dispose } = waitOptions(spec);
  const attempts = attemptLoop(context, spec, options);
  return dispose ? attempts.finally(dispose) : attempts;
}

async function attemptLoop<T>(
  context: AttemptContext,
  spec: AttemptSpec<T>,
  waiting: WaitOptions | undefined,
): Promise<AttemptOutcome<T>> {
  const { registry, retry } = context;
  let previousDelay: number | undefined;
  let firstSentAt = 0;
  for (let attempt = 1; ; attempt++) {
    const permit = await registry.admit(spec.scopes, waiting);
    if (attempt === 1) firstSentAt = permit.sentAt;
    let outcome: Attempted<T>;
    try {
      const result = await spec.send(spec.signal);
      outcome = { result, signal: spec.classify(result), attempts: attempt, firstSentAt };
    } catch (error) {
      outcome = { error, signal: failureSignal(spec, error), attempts: attempt, firstSentAt };
    }
    if (outcome.signal === undefined) {
      permit.release();
      throw outcome.error;
    }
    report(spec, permit, outcome as AttemptOutcome<T>, context.maxPauseMs);
    const budgets = retryBudgets(registry, spec.scopes);
    if (attempt === 1) for (const budget of budgets) budget.deposit();
    const done = outcome as AttemptOutcome<T>;
    if (!shouldRetry(done, spec.method, retry) || !withdrawFromAll(budgets)) return done;
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
    await backoff(context, previousDelay, waiting?.signal);
  }
}

/** Sleeps before a retry; the caller's signal or the registry's close ends it early. */
async function backoff(context: AttemptContext, ms: number, signal?: AbortSignal): Promise<void> {
  const closed = context.registry.closedSignal;
  if (signal === undefined) return context.clock.sleep(ms, closed);
  if (signal.aborted) throw abortReason(signal);
  const either = new AbortController();
  const unlistenSignal = onAbort(signal, () => either.abort(abortReason(signal)));
  const unlistenClosed = onAbort(closed, () => either.abort(closed.reason));
  try {
    await context.clock.sleep(ms, either.signal);
  } finally {
    unlistenSignal();
    unlistenClosed();
  }
}

/** Options of a wait: none, and nothing to dispose, when nothing can end it. */
interface Waiting {
  options?: WaitOptions;
  dispose?(): void;
}

const NOTHING_WAITS: Waiting = {};

/**
 * What ends a wait: the caller's signal, the admission signal, or either.
 * Linked by hand rather than with `AbortSignal.any`, whose listeners stay on
 * long-lived source signals (a crawl's) until they abort.
 */
function waitOptions<T>(spec: AttemptSpec<T>): Waiting {
  const { admitSignal } = spec;
  if (spec.signal instanceof Cancellation && !admitSignal) {
    return { options: spec.signal }; // its signal is made only if a wait parks
  }
  const signal = spec.signal && signalOf(spec.signal);
  const one = signal ?? admitSignal;
  if (!one) return NOTHING_WAITS;
  if (!signal || !admitSignal || one.aborted) return { options: { signal: one } };
  if (admitSignal.aborted) return { options: { signal: admitSignal } };
  const either = new AbortController();
  const unlistenSignal = onAbort(signal, () => either.abort(signal.reason));
  const unlistenAdmit = onAbort(admitSignal, () => either.abort(admitSignal.reason));
  return {
    options: { signal: either.signal },
    dispose() {
      unlistenSignal();
      unlistenAdmit();
    },
  };
}

function report<T>(
  spec: AttemptSpec<T>,
  permit: Permit,
  outcome: AttemptOutcome<T>,
  maxPauseMs: number | undefined,
): void {
  const { result } = outcome;
  const signal = capped(outcome.signal, maxPauseMs);
  if (result !== undefined && spec.hold) {
    spec.hold(result, (finished) =>
      permit.report(
        finished.signal ? capped(finished.signal, maxPauseMs) : signal,
        finished.timings ? { timings: finished.timings } : undefined,
      ),
    );
    return;
  }
  const timings = result === undefined ? undefined : spec.timings?.(result);
  permit.report(signal, timings ? { timings } : undefined);
}

function capped(signal: Signal, maxPauseMs: number | undefined): Signal {
  return maxPauseMs === undefined ? signal : (capPause(signal, maxPauseMs)?.signal ?? signal);
}

type Attempted<T> = Omit<AttemptOutcome<T>, 'signal'> & { signal: Signal | undefined };

/** What an attempt that got no result says about the server: nothing when the caller aborted it. */
function failureSignal<T>(spec: AttemptSpec<T>, error: unknown): Signal | undefined {
  return spec.signal?.aborted ? undefined : classify(error);
}

function shouldRetry<T>(outcome: AttemptOutcome<T>, method: string, retry: RetryPolicy): boolean {
  return (
    outcome.attempts < attemptCap(outcome.signal, retry).attempts &&
    isRetryable(outcome.signal, method, retry)
  );
}

async function discard<T>(spec: AttemptSpec<T>, outcome: AttemptOutcome<T>): Promise<void> {
  if (outcome.result !== undefined) await spec.discard?.(outcome.result);
}
