import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import type { AttemptOutcome } from './attempts.js';
import type { ResponseTap } from './response-tap.js';

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

/** A returned response's {@link ResponseInfo}, read off its final attempt's tap. */
export class TapInfo implements ResponseInfo {
  readonly attempts: number;
  readonly signal: Signal;
  readonly #tap: ResponseTap;
  #settled: Promise<void> | undefined;

  constructor(
    readonly url: string,
    outcome: AttemptOutcome<ResponseTap>,
    readonly redirects: number,
    readonly scopes: readonly string[],
    tap: ResponseTap,
  ) {
    this.attempts = outcome.attempts;
    this.signal = outcome.signal;
    this.#tap = tap;
  }

  timings(): PhaseTimings {
    return this.#tap.timings();
  }

  /** Made when first asked for: most callers never do. */
  get settled(): Promise<void> {
    this.#settled ??= new Promise((resolve) => this.#tap.onEnd(() => resolve()));
    return this.#settled;
  }
}

/** Where a response keeps its info: a module-private key (a property costs less than a WeakMap entry). */
const INFO = Symbol('ratewise.info');

type Described = Response & { [INFO]?: ResponseInfo };

/** Attaches `info` to a response ratewise returns. */
export function attachInfo(response: Response, info: ResponseInfo): void {
  (response as Described)[INFO] = info;
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
  return typeof response === 'object' && response !== null
    ? (response as Described)[INFO]
    : undefined;
}

/** Shorthand for `ratewiseInfo(response)?.timings()`. */
export function ratewiseTimings(response: Response): PhaseTimings | undefined {
  return ratewiseInfo(response)?.timings();
}
