import { RatewiseError } from '../errors.js';
import type { Signal } from '../signal.js';

/** A response body was larger than the client's `maxBodyBytes`. */
export class ResponseTooLargeError extends RatewiseError {
  /** The cap that was exceeded, bytes. */
  readonly maxBodyBytes: number;

  constructor(url: string, maxBodyBytes: number, seen: number) {
    super(
      'ERR_RATEWISE_RESPONSE_TOO_LARGE',
      `${url}: response body of ${seen} bytes or more exceeds maxBodyBytes (${maxBodyBytes}); raise maxBodyBytes to accept it`,
    );
    this.maxBodyBytes = maxBodyBytes;
  }
}

/**
 * A redirect could not be followed: too many hops, a `redirect: 'error'`
 * request, or a `Location` that is not an http(s) URL.
 */
export class RedirectError extends RatewiseError {
  constructor(url: string, problem: string) {
    super('ERR_RATEWISE_REDIRECT', `${url}: ${problem}`);
  }
}

/**
 * A request failed without a response after its attempts — refused, reset,
 * timed out. A `TypeError`, as fetch's network failures are; `cause` holds
 * the last attempt's error.
 */
export class FetchFailedError extends TypeError {
  /** Stable machine-readable code. */
  readonly code = 'ERR_RATEWISE_FETCH_FAILED';
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** The last attempt's classified signal. */
  readonly signal: Signal;

  constructor(url: string, attempts: number, signal: Signal, cause: unknown) {
    const detail = cause instanceof Error && cause.message ? cause.message : signal.reason;
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    super(`fetch failed: ${url}: ${detail} (${signal.kind}, after ${tries})`, { cause });
    this.name = 'FetchFailedError';
    this.attempts = attempts;
    this.signal = signal;
  }
}
