/**
 * A server's published rate-limit state, normalised from whichever header
 * family it used. Every field is optional: servers publish different subsets.
 */
export interface RateLimitQuota {
  /** Requests allowed per window. */
  limit?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** Milliseconds until the window resets (relative to the response). */
  resetMs?: number;
  /** Length of the policy window in milliseconds, where the server states it. */
  windowMs?: number;
  /** Requests already used in the window (GitHub's `x-ratelimit-used`). */
  used?: number;
  /** The quota's resource or policy name (GitHub's `x-ratelimit-resource`, an IETF policy name). */
  name?: string;
  /** Which header family the values came from. */
  source: RateLimitSource;
}

/** Header families {@link RateLimitQuota} is read from. */
export type RateLimitSource = 'x-ratelimit' | 'x-rate-limit' | 'ietf' | 'ietf-draft';
