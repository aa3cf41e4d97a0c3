import type { Clock } from '../clock.js';
import { redactUrl } from '../util/redact.js';
import { type CancelSource, onCancel, reasonOf } from './cancellation.js';
import type { Deadline, Deadlines } from './deadlines.js';

/** What ends an attempt early besides the server. */
export interface AttemptGuards {
  /** The request URL, for the timeout's message. */
  url: string;
  clock: Clock;
  /** Where the timeout waits (one timer for all the client's attempts). */
  deadlines: Deadlines;
  /**
   * Sending to last body byte, ms, not counting time the download spends
   * paused for the reader; `Infinity` for none.
   */
  timeoutMs: number;
  /** The caller's cancellation. */
  signal?: CancelSource;
}

/**
 * The guards of one attempt: its timeout (failing it with a `TimeoutError`,
 * which the classifier reads as a `timeout` signal) and the caller's
 * cancellation (failing it with its reason). The timeout counts only the time
 * the attempt is waiting for the server: while the download is paused because
 * nobody reads the body, its clock stands still, so a slow reader is never
 * reported as a slow server. A cancellation that already happened calls
 * `abort` at once and arms nothing. (A class rather than closures: one is
 * made for every attempt.)
 */
export class AttemptGuard {
  readonly #guards: AttemptGuards;
  readonly #abort: (reason: Error) => void;
  /** Running time left before the timeout fires. */
  #left: number;
  #deadline: Deadline | undefined;
  /** Fired, disarmed, or never armed (no timeout). */
  #done: boolean;
  #unwatch: (() => void) | undefined;

  constructor(guards: AttemptGuards, abort: (reason: Error) => void) {
    this.#guards = guards;
    this.#abort = abort;
    this.#left = guards.timeoutMs;
    const { signal } = guards;
    if (signal?.aborted) {
      this.#done = true;
      abort(asError(reasonOf(signal)));
      return;
    }
    this.#done = !Number.isFinite(guards.timeoutMs);
    if (!this.#done) this.#arm();
    if (signal) this.#unwatch = onCancel(signal, () => abort(asError(reasonOf(signal))));
  }

  /** Stops the timeout's clock: the download is paused until the reader wants more. */
  pause(): void {
    if (this.#done || this.#deadline === undefined) return;
    this.#deadline.cancel();
    this.#left = Math.max(0, this.#deadline.dueAt - this.#guards.clock.now());
    this.#deadline = undefined;
  }

  /** Starts the timeout's clock again with the time that was left. */
  resume(): void {
    if (!this.#done && this.#deadline === undefined) this.#arm();
  }

  /** Disarms the timeout and the cancellation listener. */
  disarm(): void {
    this.#done = true;
    this.#deadline?.cancel();
    this.#deadline = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #arm(): void {
    this.#deadline = this.#guards.deadlines.add(this.#left, this.#fire);
  }

  readonly #fire = (): void => {
    this.#done = true;
    const { url, timeoutMs } = this.#guards;
    this.#abort(
      new DOMException(
        `${redactUrl(url)}: no complete response within ${timeoutMs} ms`,
        'TimeoutError',
      ),
    );
  };
}

/** An abort reason undici can carry: an `Error` (a `DOMException` for anything else). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new DOMException(String(reason), 'AbortError');
}
