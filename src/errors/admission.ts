import { redactUrl } from '../util/redact.js';
import { RatewiseError } from './ratewise-error.js';

/** Waiting for admission took longer than the caller allowed. */
export class AdmissionTimeoutError extends RatewiseError {
  constructor(what: string, timeoutMs: number) {
    super('ERR_RATEWISE_TIMEOUT', `${what}: not admitted within ${timeoutMs} ms`);
  }
}

/**
 * A request's scope is paused — by the server (Retry-After, a spent quota) or
 * by its open breaker — for longer than the request would wait, so it fails
 * at once instead of waiting in silence. `until` and `reason` say when the
 * pause ends and why; nothing was sent.
 */
export class ScopePausedError extends RatewiseError {
  /** The paused scope, e.g. `host:api.example.com`. */
  readonly scope: string;
  /** When the pause ends, wall-clock epoch ms. */
  readonly until: number;
  /** Why the scope is paused, e.g. `429 with Retry-After 300 s`. */
  readonly reason: string;

  /** `inMs` is the time left in the pause; `allowed` says how long the request would wait and what sets it. */
  constructor(scope: string, until: number, inMs: number, reason: string, allowed: string) {
    super(
      'ERR_RATEWISE_SCOPE_PAUSED',
      `${scope} is paused until ${new Date(until).toISOString()} (${Math.ceil(inMs / 1000)} s from now) after ${reason}; the request would wait ${allowed}, so it was not sent`,
    );
    this.scope = scope;
    this.until = until;
    this.reason = reason;
  }
}

/** The server asked to wait longer than the caller allows; failing fast beats sleeping for hours. */
export class RetryAfterTooLongError extends RatewiseError {
  /** The wait the server asked for, ms. */
  readonly retryAfterMs: number;

  constructor(url: string, retryAfterMs: number, maxMs: number) {
    super(
      'ERR_RATEWISE_RETRY_AFTER_TOO_LONG',
      `${redactUrl(url)}: the server asked to retry after ${Math.round(retryAfterMs / 1000)} s, more than the allowed ${Math.round(maxMs / 1000)} s (raise maxRetryAfterMs to wait that long)`,
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The client or registry was closed: what waited for admission, a retry or a
 * body in flight is rejected with it, and so is every later request.
 */
export class ClosedError extends RatewiseError {
  constructor(message: string) {
    super('ERR_RATEWISE_CLOSED', message);
  }
}

/** A permit was released that was not held: a bug in the caller. */
export class ReleaseError extends RatewiseError {
  constructor(message: string) {
    super('ERR_RATEWISE_RELEASE', message);
  }
}

/** The error an aborted wait rejects with: the signal's reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
