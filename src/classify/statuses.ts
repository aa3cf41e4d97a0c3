import type { SignalKind } from '../signal.js';

/** A fixed classification for a status code. */
export interface StatusRule {
  kind: SignalKind;
  reason: string;
}

/**
 * Non-standard statuses with a known meaning, each with its origin. Statuses
 * not listed here (and not handled by a content-aware rule: 400, 401, 403,
 * 429, 502, 503, 504) fall back to their class: other 4xx are `client-error`,
 * other 5xx `server-error`.
 */
export const VENDOR_STATUSES: ReadonlyMap<number, StatusRule> = new Map<number, StatusRule>([
  // Twitter's API v1 "Enhance Your Calm": its rate-limit status before 429 existed.
  [420, { kind: 'throttled', reason: '420 enhance your calm' }],
  // Shopify: first "too many API calls", now "Security Rejection" of request patterns
  // that include volume. Slowing down is the documented remedy, so it cuts speed.
  [430, { kind: 'throttled', reason: '430 shopify security rejection' }],
  // Apache/cPanel hosting "Bandwidth Limit Exceeded": the site spent its transfer
  // quota; it is down for everyone until the quota resets, as with an overload.
  [509, { kind: 'overloaded', reason: '509 bandwidth limit exceeded' }],
  // "Site is overloaded": Qualys SSL Labs; the Anthropic API's `overloaded_error`.
  [529, { kind: 'overloaded', reason: '529 site overloaded' }],
  // Cloudflare's origin errors (the 52x family).
  [520, { kind: 'server-error', reason: '520 origin returned an unknown error' }],
  [521, { kind: 'refused', reason: '521 origin web server is down' }],
  [522, { kind: 'timeout', reason: '522 origin connection timed out' }],
  [523, { kind: 'refused', reason: '523 origin is unreachable' }],
  [524, { kind: 'timeout', reason: '524 origin response timed out' }],
  [525, { kind: 'server-error', reason: '525 origin TLS handshake failed' }],
  [526, { kind: 'server-error', reason: '526 origin TLS certificate invalid' }],
  // Proxies' network timeouts (informal, e.g. some HTTP proxies and load balancers).
  [598, { kind: 'timeout', reason: '598 network read timeout' }],
  [599, { kind: 'timeout', reason: '599 network connect timeout' }],
]);
