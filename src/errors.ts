import { redactUrl } from './util/redact.js';

const BRAND = Symbol.for('ratewise.error');

/**
 * Base class of every error ratewise throws. Each has a stable `code`, and
 * `instanceof` works even when two copies of ratewise are loaded, because the
 * check looks for a global brand rather than the class identity.
 */
export class RatewiseError extends Error {
  /** Stable machine-readable code, e.g. `ERR_RATEWISE_INVALID_OPTION`. */
  readonly code: string;
  readonly [BRAND] = true;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null || !(BRAND in value)) return false;
    // Subclasses still narrow by their own prototype chain (or by name across copies).
    if (this === RatewiseError) return true;
    return Function.prototype[Symbol.hasInstance].call(this, value) || isNamed(value, this.name);
  }
}

function isNamed(value: object, name: string): boolean {
  return (value as { name?: unknown }).name === name;
}

/** An option failed validation; the message names the option, the value and what was expected. */
export class InvalidOptionError extends RatewiseError {
  /** The option's name, e.g. `maxConcurrency`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('ERR_RATEWISE_INVALID_OPTION', message);
    this.option = option;
  }

  /** `owner: option \`name\` must be <expected>, got <value>`. */
  static invalid(
    owner: string,
    option: string,
    value: unknown,
    expected: string,
  ): InvalidOptionError {
    return new InvalidOptionError(
      option,
      `${owner}: option \`${option}\` must be ${expected}, got ${describe(value)}`,
    );
  }

  /** `owner: unknown option \`name\` (known options: …)`. */
  static unknown(owner: string, option: string, known: readonly string[]): InvalidOptionError {
    return new InvalidOptionError(
      option,
      `${owner}: unknown option \`${option}\` (known options: ${known.join(', ')})`,
    );
  }
}

/** Waiting for admission took longer than the caller allowed. */
export class AdmissionTimeoutError extends RatewiseError {
  constructor(what: string, timeoutMs: number) {
    super('ERR_RATEWISE_TIMEOUT', `${what}: not admitted within ${timeoutMs} ms`);
  }
}

/** Renders a value for an error message: `0 (number)`, `"abc" (string)`. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return `${JSON.stringify(value)} (string)`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${String(value)} (${typeof value})`;
  }
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}

/** The error an aborted wait rejects with: the signal's reason, or a standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
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
