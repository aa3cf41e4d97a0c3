const BRAND = Symbol.for('ratewise.error');

/**
 * Every error code ratewise uses, one per error class (the class is named
 * beside each). Codes are stable: match on `error.code`, not on messages.
 */
export type ErrorCode =
  /** {@link InvalidOptionError} */
  | 'ERR_RATEWISE_INVALID_OPTION'
  /** {@link AdmissionTimeoutError} */
  | 'ERR_RATEWISE_TIMEOUT'
  /** {@link ScopePausedError} */
  | 'ERR_RATEWISE_SCOPE_PAUSED'
  /** {@link RetryAfterTooLongError} */
  | 'ERR_RATEWISE_RETRY_AFTER_TOO_LONG'
  /** {@link ClosedError} */
  | 'ERR_RATEWISE_CLOSED'
  /** {@link ReleaseError} */
  | 'ERR_RATEWISE_RELEASE'
  /** {@link FetchFailedError} */
  | 'ERR_RATEWISE_FETCH_FAILED'
  /** {@link ResponseTooLargeError} */
  | 'ERR_RATEWISE_RESPONSE_TOO_LARGE'
  /** {@link RedirectError} */
  | 'ERR_RATEWISE_REDIRECT'
  /** {@link SinkClosedError} */
  | 'ERR_RATEWISE_SINK_CLOSED'
  /** {@link UnusableLogError} */
  | 'ERR_RATEWISE_UNUSABLE_LOG'
  /** {@link TooManyWindowsError} */
  | 'ERR_RATEWISE_TOO_MANY_WINDOWS'
  /** {@link UsageError} */
  | 'ERR_RATEWISE_USAGE'
  /** {@link RedisTimeoutError} */
  | 'ERR_RATEWISE_REDIS_TIMEOUT'
  /** {@link RedisUnreachableError} */
  | 'ERR_RATEWISE_REDIS_UNREACHABLE';

/**
 * Base class of every error ratewise throws. Each has a stable `code`, and
 * `instanceof` works even when two copies of ratewise are loaded, because the
 * check looks for a global brand rather than the class identity. One error,
 * {@link FetchFailedError}, is a `TypeError` as fetch's network failures are,
 * and carries the brand too: it is `instanceof RatewiseError` as well.
 */
export class RatewiseError extends Error {
  /** Stable machine-readable code, e.g. `ERR_RATEWISE_INVALID_OPTION`. */
  readonly code: ErrorCode;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBrandedInstance(this, RatewiseError, value);
  }
}

/** Marks an error that cannot extend {@link RatewiseError} (a `TypeError`) as one. */
export function brand(error: Error): void {
  Object.defineProperty(error, BRAND, { value: true });
}

/** A class of error, as `instanceof` sees it. */
type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * `value instanceof type` for branded errors: any branded value for `base`;
 * for a subclass, its own prototype chain or, across two copies, its name.
 */
export function isBrandedInstance(type: ErrorClass, base: ErrorClass, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !(BRAND in value)) return false;
  if (type === base) return true;
  return (
    Function.prototype[Symbol.hasInstance].call(type, value) ||
    (value as { name?: unknown }).name === type.name
  );
}
