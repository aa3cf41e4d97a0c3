/**
 * How a rate model states its Retry-After on a rejection:
 * - `seconds`: delta-seconds, the wait rounded up (`Retry-After: 1`);
 * - `http-date`: an IMF-fixdate of the moment the wait ends, rounded up to the second;
 * - `zero`: `Retry-After: 0` ("stop now, ask again later", whatever the real wait);
 * - `none`: no header at all.
 */
export type RetryAfterForm = 'seconds' | 'http-date' | 'zero' | 'none';

/** Every {@link RetryAfterForm}, for option validation and the catalog. */
export const RETRY_AFTER_FORMS: readonly RetryAfterForm[] = [
  'seconds',
  'http-date',
  'zero',
  'none',
];

/**
 * The Retry-After header (if any) for a rejection whose real wait is `waitMs`,
 * decided at wall-clock time `wallAt` (epoch ms).
 */
export function retryAfterHeaders(
  form: RetryAfterForm,
  waitMs: number,
  wallAt: number,
): Record<string, string> {
  const wait = Math.max(0, waitMs);
  switch (form) {
    case 'seconds':
      return { 'retry-after': String(Math.ceil(wait / 1000)) };
    case 'http-date':
      return { 'retry-after': httpDate(Math.ceil((wallAt + wait) / 1000) * 1000) };
    case 'zero':
      return { 'retry-after': '0' };
    case 'none':
      return {};
  }
}

/** Formats epoch ms as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), truncating ms. */
export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}
