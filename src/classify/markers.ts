import { clip } from './read.js';

/** Bodies are sniffed up to this many characters, whatever the caller passes. */
export const MAX_SNIFF_CHARS = 65_536;

/**
 * Body patterns of anti-bot walls, block and challenge pages, matched against
 * `401`, `403` and `503` bodies only (a `200` article that mentions "captcha" is
 * not a block). Specific vendors come first so the reason names the vendor:
 *
 * - Cloudflare: challenge platform scripts (`_cf_chl_opt`, `cf-chl-…`,
 *   `/cdn-cgi/challenge-platform/`), Turnstile, the "Just a moment…" interstitial
 *   and the "Attention Required!" block page;
 * - Akamai and Cloudflare 1020 pages titled "Access Denied";
 * - PerimeterX / HUMAN (`px-captcha`), DataDome (`captcha-delivery.com`),
 *   Imperva / Incapsula (incident pages, "Pardon Our Interruption"), Sucuri;
 * - any other page mentioning a captcha (reCAPTCHA, hCaptcha, …).
 *
 * A plain `<title>Forbidden</title>` or an API's JSON `403` matches none of them.
 */
export const DEFAULT_BLOCK_MARKERS: readonly RegExp[] = Object.freeze([
  /cf[-_]chl|\/cdn-cgi\/challenge-platform\/|cf-turnstile/i,
  /<title>\s*(?:just a moment|attention required)/i,
  /<title>\s*access denied/i,
  /px-captcha|perimeterx/i,
  /captcha-delivery\.com|datadome/i,
  /incapsula incident|_incapsula_resource|pardon our interruption/i,
  /sucuri website firewall/i,
  /captcha/i,
]);

/**
 * Body patterns saying "slow down", matched against `400`, `403` and `503`
 * bodies, the statuses vendors use for throttling besides `429`:
 *
 * - GitHub's `403` "API rate limit exceeded" and "secondary rate limit";
 *   Google APIs' `403` `rateLimitExceeded` / `userRateLimitExceeded`;
 * - "too many requests" pages and Cloudflare's "Error 1015: You are being rate limited";
 * - AWS error codes: `400` `Throttling` / `ThrottlingException` /
 *   `RequestLimitExceeded` / `TooManyRequestsException`, S3's `503` `SlowDown`,
 *   DynamoDB's `ProvisionedThroughputExceededException` (case-sensitive).
 */
export const THROTTLE_MARKERS: readonly RegExp[] = Object.freeze([
  /rate[\s_-]?limit(?:ed|[\s_-]?exceeded)|secondary rate limit/i,
  /too many requests/i,
  /\berror\s+1015\b/i,
  /\b(?:Throttl(?:ing|ed)(?:Exception)?|SlowDown|RequestLimitExceeded|TooManyRequestsException|ProvisionedThroughputExceededException)\b/,
]);

/**
 * Response headers by which a CDN marks a challenge it served in place of the
 * page, whatever the status (Vercel challenges with `429`):
 * Cloudflare's `cf-mitigated: challenge`, Vercel's `x-vercel-mitigated`.
 */
export const MITIGATION_HEADERS: readonly string[] = Object.freeze([
  'cf-mitigated',
  'x-vercel-mitigated',
]);

/**
 * The text matched by the first pattern that matches, clipped for a reason;
 * `undefined` when none does. A pattern's `lastIndex` is left as it was, and a
 * pattern that throws counts as no match.
 */
export function findMarker(text: string, patterns: readonly RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const found = matchOnce(text, pattern);
    if (found !== undefined) return clip(found, 40);
  }
  return undefined;
}

function matchOnce(text: string, pattern: RegExp): string | undefined {
  try {
    const saved = pattern.lastIndex;
    pattern.lastIndex = 0;
    const match = pattern.exec(text);
    pattern.lastIndex = saved;
    return match?.[0];
  } catch {
    return undefined;
  }
}
