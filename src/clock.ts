import { abortReason } from './errors.js';
import { onAbort } from './util/abort-listener.js';

/** Cancels a scheduled timer; calling it after the timer fired does nothing. */
export type CancelTimer = () => void;

/**
 * The only door to time. Algorithms never read a clock; enforcement code gets
 * one injected, so the same controller runs in production ({@link systemClock}),
 * in tests and in the simulator ({@link VirtualClock}).
 */
export interface Clock {
  /** Monotonic time in milliseconds. Only differences are meaningful. */
  now(): number;
  /** Wall-clock time in epoch milliseconds, for HTTP dates. */
  wallNow(): number;
  /** Calls `callback` once, `ms` from now. Returns a function that cancels it. */
  setTimer(ms: number, callback: () => void): CancelTimer;
  /** Resolves `ms` from now; rejects with the signal's reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Builds `sleep` on top of a clock's `setTimer`. */
export function sleepOn(
  clock: Pick<Clock, 'setTimer'>,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const cancel = clock.setTimer(ms, () => {
      unlisten?.();
      resolve();
    });
    const unlisten =
      signal &&
      onAbort(signal, () => {
        cancel();
        reject(abortReason(signal));
      });
  });
}

/**
 * The real clock: `performance.now`, `Date.now` and `setTimeout`. A timer never
 * fires before `now()` has advanced by `ms`: Node measures `setTimeout` from
 * the event loop's cached time, so it often fires up to a millisecond early by
 * `performance.now()`, and a waiter woken early would find its deadline not
 * yet reached and park again with no timer left to wake it.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimer(ms, callback) {
    const due = performance.now() + Math.max(0, ms);
    let handle: ReturnType<typeof setTimeout>;
    const arm = (delay: number): void => {
      // setTimeout takes at most 2^31 - 1 ms (longer fires at once): wait in steps.
      handle = setTimeout(
        () => {
          const left = due - performance.now();
          if (left > 0) arm(left);
          else callback();
        },
        Math.min(delay, MAX_TIMEOUT_MS),
      );
    };
    arm(Math.max(0, ms));
    return () => clearTimeout(handle);
  },
  sleep(ms, signal) {
    return sleepOn(systemClock, ms, signal);
  },
};
