/**
 * Every error ratewise throws, in one module: each is a {@link RatewiseError}
 * with a stable {@link ErrorCode}, one class per code. The classes live in
 * `src/errors/`, one file per layer; this file is their single import site.
 */
export {
  AdmissionTimeoutError,
  abortReason,
  ClosedError,
  ReleaseError,
  RetryAfterTooLongError,
  ScopePausedError,
} from './errors/admission.js';
export { TooManyWindowsError, UnusableLogError } from './errors/analysis.js';
export {
  type FailedAttempts,
  FetchFailedError,
  RedirectError,
  ResponseTooLargeError,
} from './errors/client.js';
export { SinkClosedError } from './errors/events.js';
export { describe, InvalidOptionError } from './errors/invalid-option.js';
export { type ErrorCode, RatewiseError } from './errors/ratewise-error.js';
export { RedisTimeoutError, RedisUnreachableError } from './errors/redis.js';
export { oneLine, UsageError } from './errors/usage.js';
