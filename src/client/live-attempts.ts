import { ClosedError } from '../errors.js';
import type { ResponseTap } from './response-tap.js';

/** The attempts a client has sent and not finished (bodies being read included), for `close()`. */
export class LiveAttempts {
  readonly #taps = new Set<ResponseTap>();

  /** Keeps `tap` until its exchange is over. */
  track(tap: ResponseTap): void {
    this.#taps.add(tap);
    tap.onEnd(() => this.#taps.delete(tap));
  }

  /** Ends every one of them with `reason` (the body of a returned response fails with it). */
  abortAll(reason: Error): void {
    for (const tap of this.#taps) tap.abort(reason);
  }
}

/** What a request in flight, or a body being read, fails with when its client closes. */
export function closedInFlight(): ClosedError {
  return new ClosedError('createClient: closed while the request was in flight');
}
