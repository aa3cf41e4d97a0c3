import type { Signal } from '../signal.js';
import { redactSecrets, redactUrl } from '../util/redact.js';
import { brand, isBrandedInstance, RatewiseError } from './ratewise-error.js';

/** A response body was larger than the client's `maxBodyBytes`, as sent or once decompressed. */
export class ResponseTooLargeError extends RatewiseError {
  /** The cap that was exceeded, bytes. */
  readonly maxBodyBytes: number;

  /** `decoded` when the body grew past the cap while being decompressed. */
  constructor(url: string, maxBodyBytes: number, seen: number, decoded = false) {
    const what = decoded ? 'decoded response body' : 'response body';
    super(
      'ERR_RATEWISE_RESPONSE_TOO_LARGE',
      `${redactUrl(url)}: ${what} of ${seen} bytes or more exceeds maxBodyBytes (${maxBodyBytes}); raise maxBodyBytes to accept it`,
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
    super('ERR_RATEWISE_REDIRECT', `${redactUrl(url)}: ${redactSecrets(problem)}`);
  }
}

/** How a request that failed without a response was tried. */
export interface FailedAttempts {
  /** Attempts made, the first included. */
  attempts: number;
  /** From the first attempt's send to the failure, ms. */
  elapsedMs: number;
  /** The retry option that capped the attempts, when they ran out (`maxAttempts`, `refusedAttempts`). */
  capOption: string | undefined;
}

/**
 * A request failed without a response after its attempts — refused, reset,
 * timed out. A `TypeError`, as fetch's network failures are, and a
 * {@link RatewiseError} by its brand; `cause` holds the last attempt's error.
 * The message says how many attempts were made over how long, and which retry
 * option allows more:
 * `fetch failed: http://127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1
 * (refused; 2 attempts in 0.3 s; retry.refusedAttempts sets how many)`.
 */
export class FetchFailedError extends TypeError {
  /** Stable machine-readable code. */
  readonly code = 'ERR_RATEWISE_FETCH_FAILED';
  /** Attempts made, the first included. */
  readonly attempts: number;
  /** From the first attempt's send to the failure, ms. */
  readonly elapsedMs: number;
  /** The last attempt's classified signal. */
  readonly signal: Signal;

  constructor(url: string, tried: FailedAttempts, signal: Signal, cause: unknown) {
    const detail = redactSecrets(
      cause instanceof Error && cause.message ? cause.message : signal.reason,
    );
    const tries = tried.attempts === 1 ? '1 attempt' : `${tried.attempts} attempts`;
    const seconds = (tried.elapsedMs / 1000).toFixed(1);
    const hint = tried.capOption ? `; retry.${tried.capOption} sets how many` : '';
    super(
      `fetch failed: ${redactUrl(url)}: ${detail} (${signal.kind}; ${tries} in ${seconds} s${hint})`,
      { cause },
    );
    this.name = 'FetchFailedError';
    this.attempts = tried.attempts;
    this.elapsedMs = tried.elapsedMs;
    this.signal = signal;
    brand(this);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBrandedInstance(this, RatewiseError, value);
  }
}
