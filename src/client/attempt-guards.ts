import type { CancelTimer, Clock } from '../clock.js';
import { type CancelSource, onCancel, reasonOf } from './cancellation.js';

/** What ends an attempt early besides the server. */
export interface AttemptGuards {
  /** The request URL, for the timeout's message. */
  url: string;
  clock: Clock;
  /**
   * Sending to last body byte, ms, not counting time the download spends
   * paused for the reader; `Infinity` for none.
   */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal?: CancelSource;
}

/** The armed guards of one attempt. */
export interface AttemptGuard {
  /** Stops the timeout's clock: the download is paused until the reader wants more. */
  pause(): void;
  /** Starts the timeout's clock again with the time that was left. */
  resume(): void;
  /** Disarms the timeout and the abort listener. */
  disarm(): void;
}

/** A guard with nothing armed. */
export const NO_GUARD: AttemptGuard = { pause() {}, resume() {}, disarm() {} };

/**
 * Arms an attempt's timeout (failing it with a `TimeoutError`, which the
 * classifier reads as a `timeout` signal) and the caller's abort signal (with
 * its reason). The timeout counts only the time the attempt is waiting for
 * the server: while the download is paused because nobody reads the body, its
 * clock stands still, so a slow reader is never reported as a slow server.
 * A signal that already aborted calls `abort` at once and arms nothing.
 */
export function guardAttempt(guards: AttemptGuards, abort: (reason: Error) => void): AttemptGuard {
  const { clock, timeoutMs, signal, url } = guards;
  if (signal?.aborted) {
    abort(asError(reasonOf(signal)));
    return NO_GUARD;
  }
  const timeout = pausableTimer(clock, timeoutMs, () =>
    abort(new DOMException(`${url}: no complete response within ${timeoutMs} ms`, 'TimeoutError')),
  );
  const unwatch = signal && onCancel(signal, () => abort(asError(reasonOf(signal))));
  return {
    pause: timeout.pause,
    resume: timeout.resume,
    disarm() {
      timeout.cancel();
      unwatch?.();
    },
  };
}

/** A timer for `ms` of running time (none when `ms` is infinite) that can stand still. */
function pausableTimer(clock: Clock, ms: number, fire: () => void) {
  let left = ms;
  let startedAt = 0; // set when armed
  let cancel: CancelTimer | undefined;
  let done = !Number.isFinite(ms);
  const arm = () => {
    startedAt = clock.now();
    cancel = clock.setTimer(left, () => {
      done = true;
      fire();
    });
  };
  if (!done) arm();
  return {
    pause() {
      if (done || cancel === undefined) return;
      cancel();
      cancel = undefined;
      left = Math.max(0, left - (clock.now() - startedAt));
    },
    resume() {
      if (!done && cancel === undefined) arm();
    },
    cancel() {
      done = true;
      cancel?.();
      cancel = undefined;
    },
  };
}

/** An abort reason undici can carry: an `Error` (a `DOMException` for anything else). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError');
}
