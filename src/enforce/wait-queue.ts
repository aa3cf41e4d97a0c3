import type { Clock } from '../clock.js';
import { AdmissionTimeoutError, abortReason } from '../errors.js';
import { numberOption } from '../options.js';
import { onAbort } from '../util/abort-listener.js';

/** How long a caller is willing to wait for admission. */
export interface WaitOptions {
  /** Abort the wait; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Give up after this many ms; the promise rejects with {@link AdmissionTimeoutError}. */
  timeoutMs?: number;
  /**
   * Longest known pause — the server's Retry-After or spent quota, an open
   * breaker — the caller waits through; a scope paused for longer (or past
   * `timeoutMs`) fails the admission at once with a `ScopePausedError`.
   * Read by scope controllers (default: their `maxPauseWaitMs`).
   */
  maxPauseWaitMs?: number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  cancelTimer: (() => void) | undefined;
  unlisten: (() => void) | undefined;
  live: boolean;
}

/** The monotonic deadline a wait's `timeoutMs` sets, from `now` (Infinity when none). */
export function deadlineOf(options: WaitOptions | undefined, now: number): number {
  const timeoutMs = options?.timeoutMs;
  return timeoutMs === undefined ? Infinity : now + timeoutMs;
}

/**
 * The options for the next stage of a wait with several stages: the same
 * signal and longest pause, the time left.
 */
export function untilDeadline(
  options: WaitOptions | undefined,
  deadline: number,
  now: number,
): WaitOptions {
  const stage: WaitOptions = {};
  if (options?.signal) stage.signal = options.signal;
  if (options?.maxPauseWaitMs !== undefined) stage.maxPauseWaitMs = options.maxPauseWaitMs;
  if (deadline !== Infinity) stage.timeoutMs = Math.max(0, deadline - now);
  return stage;
}

/**
 * A FIFO of parked callers. A waiter leaves it exactly once: woken by
 * {@link WaitQueue.wakeOne}, or rejected by its abort signal or timeout (and
 * then it is skipped, so a wake-up is never spent on a caller that left).
 */
export class WaitQueue {
  #items: (Waiter | undefined)[] = [];
  #head = 0;
  #live = 0;

  /** Number of callers still waiting. */
  get size(): number {
    return this.#live;
  }

  /** Parks the caller until woken, aborted or timed out. */
  wait(clock: Clock, options: WaitOptions | undefined, what: string): Promise<void> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        cancelTimer: undefined,
        unlisten: undefined,
        live: true,
      };
      const timeoutMs = numberOption(what, 'timeoutMs', options?.timeoutMs, Infinity, {
        min: 0,
        infinite: true,
      });
      if (timeoutMs !== Infinity) {
        waiter.cancelTimer = clock.setTimer(timeoutMs, () =>
          this.#leave(waiter, new AdmissionTimeoutError(what, timeoutMs)),
        );
      }
      if (signal) waiter.unlisten = onAbort(signal, () => this.#leave(waiter, abortReason(signal)));
      this.#items.push(waiter);
      this.#live++;
    });
  }

  /** Wakes the longest-waiting live caller. Returns false when nobody is waiting. */
  wakeOne(): boolean {
    while (this.#head < this.#items.length) {
      const waiter = this.#items[this.#head];
      this.#items[this.#head++] = undefined;
      if (!waiter?.live) continue;
      this.#compact();
      this.#detach(waiter);
      waiter.resolve();
      return true;
    }
    this.#compact();
    return false;
  }

  /** Wakes every live caller. */
  wakeAll(): void {
    while (this.wakeOne()) {
      // each call wakes one
    }
  }

  /** Rejects every live caller with `reason` (the thing they wait for is closing). */
  rejectAll(reason: unknown): void {
    for (const waiter of this.#items.splice(0)) if (waiter) this.#leave(waiter, reason);
    this.#head = 0;
  }

  #leave(waiter: Waiter, reason: unknown): void {
    if (!waiter.live) return;
    this.#detach(waiter);
    waiter.reject(reason);
    if (this.#items.length - this.#head > 2 * this.#live + 64) {
      this.#items = this.#items.filter((item) => item?.live);
      this.#head = 0;
    }
  }

  #detach(waiter: Waiter): void {
    waiter.live = false;
    this.#live--;
    waiter.cancelTimer?.();
    waiter.unlisten?.();
  }

  /** Drops consumed slots once they dominate the array, keeping memory bounded. */
  #compact(): void {
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 64 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
