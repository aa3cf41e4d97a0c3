import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { DATE_OPTION, NOW_OPTION, parseHttpDate } from './http-date.js';

const DAY_MS = 86_400_000;

/** delta-seconds: ASCII digits only (no sign, fraction or exponent), optional whitespace around. */
const DELTA_SECONDS = /^[ \t]*(\d+)[ \t]*$/;

/** Options of {@link parseRetryAfter}. */
export interface RetryAfterOptions {
  /**
   * The current wall-clock time in epoch ms. Used for HTTP-date values only
   * when `date` is missing or unparseable, and to resolve two-digit RFC 850
   * years. There is no default: parsers never read the clock, so an HTTP-date
   * value with neither `date` nor `now` yields `undefined`.
   */
  now?: number;
  /**
   * The response's `Date` header. When it parses, an HTTP-date delay is
   * measured against it (`retryDate − serverDate`), so a skewed local clock
   * does not matter.
   */
  date?: string | null | undefined;
  /**
   * The longest delay returned, in ms. Longer hints are clamped to it, not
   * discarded: the server did ask for a long wait, and it is the caller's
   * decision whether to wait or fail fast.
   * @default 86_400_000 (24 hours)
   */
  maxMs?: number;
}

/**
 * Parses a `Retry-After` value into a delay in milliseconds (RFC 9110 §10.2.3).
 *
 * - delta-seconds (`"120"`) → `120_000`. Only digits are accepted: `"1.5"`,
 *   `"-3"`, `"+3"` and `"1e3"` are not delta-seconds and yield `undefined`.
 * - An HTTP-date in any of the three forms (see {@link parseHttpDate}) → the
 *   time from the response's `Date` (or, failing that, from `now`) until it;
 *   dates in the past give `0`.
 *
 * The result is always `undefined` or a finite number in `[0, maxMs]`: too
 * large values, even beyond the safe-integer range, are clamped to `maxMs`.
 * Malformed values yield `undefined`; only invalid options throw.
 *
 * `0` is a valid result: the server asked for a pause, however short.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  options: RetryAfterOptions = {},
): number | undefined {
  const { now, date, maxMs } = readOptions(options);
  return typeof value === 'string'
    ? retryAfterDelay(value, now, date ?? undefined, maxMs)
    : undefined;
}

/**
 * {@link parseRetryAfter} with its options already checked, for callers that
 * read every response: `now` and `date` as there, `maxMs` defaulting to 24 hours.
 */
export function retryAfterDelay(
  value: string,
  now: number | undefined,
  date: string | undefined,
  maxMs = DAY_MS,
): number | undefined {
  const delta = DELTA_SECONDS.exec(value);
  if (delta) return clamp(Number(delta[1]) * 1000, maxMs);
  const serverDate = parseHttpDate(date, now);
  const reference = serverDate ?? now;
  if (reference === undefined || !Number.isFinite(reference)) return undefined;
  const retryAt = parseHttpDate(value, reference);
  return retryAt === undefined ? undefined : clamp(retryAt - reference, maxMs);
}

const readOptions = defineOptions<RetryAfterOptions>()('parseRetryAfter', {
  now: NOW_OPTION,
  date: DATE_OPTION,
  maxMs: number(DAY_MS, { min: 0 }),
});

/** Clamps to `[0, maxMs]`; `Infinity` (from a huge digit string) becomes `maxMs`. */
function clamp(ms: number, maxMs: number): number {
  return Math.min(Math.max(ms, 0), maxMs);
}
