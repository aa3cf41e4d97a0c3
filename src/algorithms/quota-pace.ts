import type { RateLimitQuota } from '../headers/quota.js';

/** What a server's published quota allows, as of one response. */
export interface QuotaPace {
  /** Rate cap in requests/s; `Infinity` when the quota caps nothing. */
  cap: number;
  /** Monotonic ms to pause until because the quota is spent; 0 for no pause. */
  pauseUntil: number;
  /** When this information goes stale: the quota window resets. */
  expiresAt: number;
}

/**
 * Turns a published quota into a rate cap so that the 429 never comes:
 *
 * - a policy (`limit` >= 1 per `windowMs` > 0) caps at `limit / window`;
 * - `remaining` is spread over the time to the reset, with a `margin` (a
 *   fraction) kept in reserve for requests the server had not counted yet when
 *   it wrote the header (those still on the way to it);
 * - nothing left to spend (less than one request) pauses until the reset.
 *
 * The time to the reset is `resetMs`, or `windowMs` when only the policy is
 * known (the worst case). Without either, the quota says nothing usable and
 * `undefined` is returned. Non-finite or negative fields are ignored. With
 * `margin` in [0, 1) the cap is always positive (or `Infinity`).
 */
export function quotaPace(
  quota: RateLimitQuota,
  at: number,
  margin: number,
): QuotaPace | undefined {
  const limit = usable(quota.limit);
  const windowMs = usable(quota.windowMs);
  const toReset = usable(quota.resetMs) ?? windowMs;
  if (toReset === undefined) return undefined;
  const policyCap =
    limit !== undefined && limit >= 1 && windowMs !== undefined && windowMs > 0
      ? (limit * 1000) / windowMs
      : Infinity;
  const pace: QuotaPace = { cap: policyCap, pauseUntil: 0, expiresAt: at + toReset };
  const remaining = usable(quota.remaining);
  if (remaining === undefined) return pace;
  if (remaining < 1)
    pace.pauseUntil = at + toReset; // no whole request left
  else if (toReset > 0) {
    pace.cap = Math.min(policyCap, (remaining * (1 - margin) * 1000) / toReset);
  }
  return pace;
}

function usable(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
