import type { Clock } from '../clock.js';
import { abortReason, ScopePausedError } from '../errors.js';
import { onAbort } from '../util/abort-listener.js';
import type { WaitOptions } from './wait-queue.js';

/** An admission waiting, and the longest pause it waits through. */
interface Waiter {
  /** Monotonic ms by which it must be admitted (`Infinity`: none). */
  deadline: number;
  /** Longest known pause it waits for, ms. */
  maxWaitMs: number;
  /** Ends its wait with a {@link ScopePausedError}. */
  stop: AbortController;
}

/** A watched admission's wait: its options, and what to call when it is over. */
export interface GuardedWait {
  options: WaitOptions | undefined;
  leave(): void;
}

const UNWATCHED = { leave() {} };

/**
 * Never lets a request wait in silence for a pause it will not outlast. A
 * scope knows when it is paused — the server's Retry-After or spent quota,
 * its own open breaker — and why; a request that would have to wait past
 * its deadline, or longer than `maxWaitMs`, fails at once with a
 * {@link ScopePausedError} that says until when and why: on arrival, or, if
 * it is already waiting when the pause begins, right then.
 */
export class PauseGuard {
  readonly #scope: string;
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  readonly #waiters = new Set<Waiter>();
  #until = 0;
  #reason = '';

  /** `maxWaitMs` is the default longest pause a request waits for (a wait's `maxPauseWaitMs` overrides it). */
  constructor(scope: string, clock: Clock, maxWaitMs: number) {
    this.#scope = scope;
    this.#clock = clock;
    this.#maxWaitMs = maxWaitMs;
  }

  /** The current pause, if one is pending: its end (monotonic ms) and cause. */
  current(now: number): { until: number; reason: string } | undefined {
    return this.#until > now ? { until: this.#until, reason: this.#reason } : undefined;
  }

  /**
   * The pacer is paused until `paced` and the breaker open until `open`
   * (monotonic ms, 0 for no pause), because of `cause`: records the later.
   */
  note(paced: number, open: number, cause: string): void {
    if (open > paced) this.pause(open, `${cause}, which left the breaker open`);
    else this.pause(paced, cause);
  }

  /**
   * The scope is paused until `until` (monotonic ms) because of `reason`. A
   * pause that ends sooner than the pending one changes nothing; waiting
   * requests that will not outlast a longer one fail now.
   */
  pause(until: number, reason: string): void {
    if (!(until > this.#until)) return;
    this.#until = until;
    this.#reason = reason;
    const now = this.#clock.now();
    for (const { deadline, maxWaitMs, stop } of this.#waiters) {
      if (until > Math.min(deadline, now + maxWaitMs))
        stop.abort(this.#error(deadline, maxWaitMs, now));
    }
  }

  /**
   * An admission that must wait starts here: it throws a
   * {@link ScopePausedError} if the pending pause outlasts the request, else
   * returns the options to wait with, whose signal also ends the wait when a
   * pause it will not outlast begins. Call `leave()` once admitted or failed.
   */
  enter(options: WaitOptions | undefined, deadline: number): GuardedWait {
    const maxWaitMs = options?.maxPauseWaitMs ?? this.#maxWaitMs;
    const now = this.#clock.now();
    if (this.#until > Math.min(deadline, now + maxWaitMs)) {
      throw this.#error(deadline, maxWaitMs, now);
    }
    if (deadline === Infinity && maxWaitMs === Infinity) return { options, ...UNWATCHED };
    const waiter: Waiter = { deadline, maxWaitMs, stop: new AbortController() };
    const signal = options?.signal;
    if (signal?.aborted) throw abortReason(signal);
    const unlisten = signal && onAbort(signal, () => waiter.stop.abort(abortReason(signal)));
    this.#waiters.add(waiter);
    return {
      options: { ...options, signal: waiter.stop.signal },
      leave: () => {
        this.#waiters.delete(waiter);
        unlisten?.();
      },
    };
  }

  /** Why a request with `deadline` and `maxWaitMs` cannot wait out the pending pause. */
  #error(deadline: number, maxWaitMs: number, now: number): ScopePausedError {
    const left = this.#until - now;
    const allowed =
      deadline - now < maxWaitMs
        ? `${Math.round((deadline - now) / 1000)} s more until its deadline`
        : `at most ${Math.round(maxWaitMs / 1000)} s for a pause (maxPauseWaitMs; retry.maxRetryAfterMs with createClient)`;
    return new ScopePausedError(
      this.#scope,
      this.#clock.wallNow() + left,
      left,
      this.#reason,
      allowed,
    );
  }
}
