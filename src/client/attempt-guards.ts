import type { Clock } from '../clock.js';

/** What ends an attempt early besides the server. */
export interface AttemptGuards {
  /** The request URL, for the timeout's message. */
  url: string;
  clock: Clock;
  /** Dispatch to last body byte, ms; `Infinity` for none. */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal?: AbortSignal;
}

/**
 * Arms an attempt's timeout (failing it with a `TimeoutError`, which the
 * classifier reads as a `timeout` signal) and the caller's abort signal (with
 * its reason). Returns the function that disarms both. A signal that already
 * aborted calls `abort` at once and arms nothing.
 */
export function guardAttempt(guards: AttemptGuards, abort: (reason: Error) => void): () => void {
  const { clock, timeoutMs, signal, url } = guards;
  if (signal?.aborted) {
    abort(abortReason(signal));
    return () => {};
  }
  const cancelTimer = Number.isFinite(timeoutMs)
    ? clock.setTimer(timeoutMs, () =>
        abort(
          new DOMException(`${url}: no complete response within ${timeoutMs} ms`, 'TimeoutError'),
        ),
      )
    : undefined;
  const onAbort = () => abort(abortReason(signal as AbortSignal));
  signal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    cancelTimer?.();
    signal?.removeEventListener('abort', onAbort);
  };
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}
