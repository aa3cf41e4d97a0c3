import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** What ratewise knows about a response it returned. */
export interface ResponseInfo {
  /** The final URL, after redirects. */
  readonly url: string;
  /** Attempts made for the final hop, the first included. */
  readonly attempts: number;
  /** Redirects followed to get here. */
  readonly redirects: number;
  /** The signal the final attempt was classified as. */
  readonly signal: Signal;
  /** The scopes that admitted the final attempt. */
  readonly scopes: readonly string[];
  /**
   * Per-phase timings of the final attempt. `totalMs` and `bytes` keep growing
   * while the body downloads; they are final once it has been read or cancelled.
   */
  timings(): PhaseTimings;
  /** Resolves when the body has been read, cancelled or has failed (the scope's slot is free again). */
  readonly settled: Promise<void>;
}

const infos = new WeakMap<Response, ResponseInfo>();

/** Attaches `info` to a response ratewise returns. */
export function attachInfo(response: Response, info: ResponseInfo): void {
  infos.set(response, info);
}

/**
 * What ratewise knows about `response` — attempts, redirects, signal, scopes
 * and per-phase timings — or `undefined` for a response it did not return.
 *
 * ```ts
 * const response = await client.fetch(url);
 * await response.text();
 * console.log(ratewiseInfo(response)?.timings()); // { dnsMs, connectMs, tlsMs, ttfbMs, totalMs, bytes }
 * ```
 */
export function ratewiseInfo(response: Response): ResponseInfo | undefined {
  return infos.get(response);
}

/** Shorthand for `ratewiseInfo(response)?.timings()`. */
export function ratewiseTimings(response: Response): PhaseTimings | undefined {
  return infos.get(response)?.timings();
}
