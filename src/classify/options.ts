import type { HeadersInput } from '../headers/header-value.js';
import { check, func, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { DEFAULT_BLOCK_MARKERS } from './markers.js';

/**
 * A response as {@link classify} reads it. A WHATWG `Response` or a plain
 * object fit; a numeric `statusCode` (undici's `request()` result, Node's
 * `IncomingMessage`) is read when there is no numeric `status`.
 */
export interface ResponseLike {
  /** HTTP status code. */
  status: number;
  /** Response headers. */
  headers: HeadersInput;
  /**
   * A prefix of the body as a string, sniffed for block and rate-limit pages
   * (the first 4 KiB is plenty; at most 64 Ki characters are read). Anything
   * else, such as a fetch body stream, is ignored.
   */
  body?: unknown;
}

/** What an `isBlocked` predicate is shown: the response with its sniffed body. */
export interface SniffedResponse {
  /** HTTP status code. */
  status: number;
  /** Response headers, as given. */
  headers: HeadersInput;
  /** The body prefix, when the response carried one as a string. */
  body: string | undefined;
}

/** Options of {@link classify}. */
export interface ClassifyOptions {
  /**
   * Wall-clock time of the response in epoch ms, to turn an HTTP-date
   * `Retry-After` or an epoch rate-limit reset into a delay when the response
   * has no usable `Date` header. No default: the classifier never reads the clock.
   */
  now?: number;
  /**
   * Your own block-page test, consulted first for every response (a `200` with a
   * captcha page included). Return `true`, or a string that becomes the signal's
   * reason, to classify the response as `blocked`; `false` leaves the decision to
   * the built-in rules. If it throws, it is treated as `false`.
   */
  isBlocked?: (response: SniffedResponse) => boolean | string;
  /**
   * Patterns that mark a `401`/`403`/`503` body as a block or challenge page.
   * They replace the defaults: pass `[...DEFAULT_BLOCK_MARKERS, /mine/]` to add one,
   * or `[]` to turn body sniffing for blocks off.
   * @default DEFAULT_BLOCK_MARKERS
   */
  blockMarkers?: readonly RegExp[];
}

/** Validated options. */
export interface ClassifySettings {
  now: number | undefined;
  isBlocked: ((response: SniffedResponse) => boolean | string) | undefined;
  blockMarkers: readonly RegExp[];
}

const readOptions = defineOptions<ClassifyOptions>()('classify', {
  now: number(undefined),
  isBlocked: func(),
  blockMarkers: check(
    'an array of RegExp',
    (value): value is readonly RegExp[] =>
      Array.isArray(value) && value.every((marker) => marker instanceof RegExp),
    DEFAULT_BLOCK_MARKERS,
  ),
});

/** Checks {@link ClassifyOptions}; throws an `InvalidOptionError` naming the option and value. */
export function readClassifyOptions(options: ClassifyOptions): ClassifySettings {
  return readOptions(options);
}
