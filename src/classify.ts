import { readFailure } from './classify/error.js';
import {
  type ClassifyOptions,
  type ClassifySettings,
  type ResponseLike,
  readClassifyOptions,
} from './classify/options.js';
import { classifyResponse, isResponseLike } from './classify/response.js';
import type { Signal } from './signal.js';

export { DEFAULT_BLOCK_MARKERS, THROTTLE_MARKERS } from './classify/markers.js';
export type { ClassifyOptions, ResponseLike, SniffedResponse } from './classify/options.js';

/**
 * Turns the outcome of one request — a response, or whatever was thrown
 * instead — into a {@link Signal}, the only input the controller reacts to
 * (each kind has one reaction, see `REACTIONS`). Never throws on any outcome,
 * however malformed or hostile; only invalid `options` throw.
 *
 * Responses (anything with a numeric `status` or `statusCode`) follow the table.
 * `Retry-After` and rate-limit headers are parsed on every response and carried
 * as `retryAfterMs` and `quota`.
 *
 * | outcome | kind |
 * | --- | --- |
 * | 2xx, 3xx | ok |
 * | 429; 420 (Twitter), 430 (Shopify); 400/403/503 with quota remaining 0, a rate-limit page, or (403) a Retry-After | throttled |
 * | 502, 503, 504 (with or without Retry-After), 509 (cPanel bandwidth), 529 | overloaded |
 * | `isBlocked` says so (any status); `cf-mitigated`/`x-vercel-mitigated` header; 401/403/503 with a block-page marker | blocked |
 * | other 4xx, including a bare 401/403 | client-error |
 * | other 5xx; a status outside 200–599 | server-error |
 * | ECONNRESET, EPIPE, UND_ERR_SOCKET ("other side closed"), HTTP/2 stream errors | reset |
 * | ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, DNS failures (ENOTFOUND, EAI_AGAIN) | refused |
 * | ETIMEDOUT, UND_ERR_{CONNECT,HEADERS,BODY}_TIMEOUT, a `TimeoutError` (AbortSignal.timeout) | timeout |
 * | any other error | server-error, reason `unrecognised error …` |
 *
 * Errors are unwrapped through their `cause` chain (undici's `fetch failed`),
 * and an error carrying a response (`error.response` as in ky and axios, or
 * its own `statusCode` and `headers` as undici's `ResponseError` and
 * `RequestRetryError`) is classified as that response.
 *
 * Returns `undefined` when the outcome says nothing about the server: the
 * caller aborted the request ({@link isAbort}), ratewise itself refused it
 * (a `RatewiseError`, such as an admission timeout), or the HTTP client was
 * shut down (undici's `UND_ERR_DESTROYED`, `UND_ERR_CLOSED`). Such outcomes must not
 * reach the controller. A response always yields a signal.
 */
export function classify(outcome: ResponseLike, options?: ClassifyOptions): Signal;
export function classify(outcome: unknown, options?: ClassifyOptions): Signal | undefined;
export function classify(outcome: unknown, options: ClassifyOptions = {}): Signal | undefined {
  return classifyWith(outcome, readClassifyOptions(options));
}

/**
 * {@link classify} with options already checked by `readClassifyOptions`,
 * for callers that classify every response with the same options.
 */
export function classifyWith(outcome: ResponseLike, settings: ClassifySettings): Signal;
export function classifyWith(outcome: unknown, settings: ClassifySettings): Signal | undefined;
export function classifyWith(outcome: unknown, settings: ClassifySettings): Signal | undefined {
  try {
    if (isResponseLike(outcome)) return classifyResponse(outcome, settings);
    const reading = readFailure(outcome);
    switch (reading.type) {
      case 'signal':
        return reading.signal;
      case 'response':
        return classifyResponse(reading.response, settings);
      case 'unknown':
        return { kind: 'server-error', reason: reading.reason };
      default:
        return undefined;
    }
  } catch {
    // Every read is guarded; this is the last line of the never-throw promise.
    return { kind: 'server-error', reason: 'unclassifiable outcome' };
  }
}

/**
 * Whether a thrown value is the caller's own abort (a DOMException or Node
 * `AbortError`, undici's `UND_ERR_ABORTED`), anywhere in its cause chain. Such
 * a failure says nothing about the server: {@link classify} returns
 * `undefined` for it, and a retry loop should stop. A `TimeoutError` — also
 * under an `AbortError` — is not an abort but a `timeout` signal.
 */
export function isAbort(error: unknown): boolean {
  try {
    return !isResponseLike(error) && readFailure(error).type === 'abort';
  } catch {
    return false;
  }
}
