import type { RateLimitQuota } from './headers/quota.js';

/**
 * What a response (or a failure to get one) says about the sending rate.
 * {@link classify} produces these; each has exactly one reaction ({@link REACTIONS}).
 */
export type SignalKind =
  | 'ok'
  | 'throttled'
  | 'overloaded'
  | 'blocked'
  | 'reset'
  | 'refused'
  | 'timeout'
  | 'client-error'
  | 'server-error';

/** A classified outcome of one request. */
export interface Signal {
  /** The class of outcome. */
  kind: SignalKind;
  /** Short human-readable cause, e.g. `429`, `403 block page`, `ECONNRESET`. */
  reason: string;
  /** HTTP status, when there was a response. */
  status?: number;
  /** The server's Retry-After, in ms, when present and valid. */
  retryAfterMs?: number;
  /** The server's published quota, when it sent rate-limit headers. */
  quota?: RateLimitQuota;
}

/** How the controller reacts to a signal. */
export interface Reaction {
  /**
   * Effect on concurrency limit and rate: `grow` (a success: room to increase),
   * `cut` (multiplicative decrease, once per congestion event), `cut-hard`
   * (a deeper decrease and a hold on increases), `hold` (no change).
   */
  speed: 'grow' | 'cut' | 'cut-hard' | 'hold';
  /**
   * Effect on the breaker: counts as a success, a failure, or neither; a
   * `refusal` (the server is up and asks to wait) is no strike — the rate's
   * pauses wait it out — but a long Retry-After opens the breaker by itself.
   */
  breaker: 'success' | 'failure' | 'refusal' | 'none';
  /** Whether the request may be retried (subject to method idempotency and budgets). */
  retry: boolean;
}

/**
 * The one documented reaction to each signal:
 *
 * | signal | speed | breaker | retry | why |
 * | --- | --- | --- | --- | --- |
 * | ok | grow | success | no | evidence of headroom |
 * | throttled | cut | failure | yes | 429 and its vendor forms: too fast |
 * | overloaded | cut-hard | failure | yes | 503 and friends: the origin struggles; a success right after is no proof of headroom |
 * | blocked | hold | none | no | a block page is a session problem, not a speed problem; raises a `blocked` event |
 * | reset | cut | failure | yes | connection reset mid-request: a hard-throttling form |
 * | refused | hold | failure | yes | nothing listening: the breaker stops us hammering a down host |
 * | timeout | cut | failure | yes | an unanswered request is a drop |
 * | client-error | hold | success | no | the server answered normally; the request is wrong |
 * | server-error | hold | none | yes | a broken page says nothing about our rate |
 */
export const REACTIONS: Readonly<Record<SignalKind, Readonly<Reaction>>> = Object.freeze({
  ok: { speed: 'grow', breaker: 'success', retry: false },
  throttled: { speed: 'cut', breaker: 'refusal', retry: true },
  overloaded: { speed: 'cut-hard', breaker: 'failure', retry: true },
  blocked: { speed: 'hold', breaker: 'none', retry: false },
  reset: { speed: 'cut', breaker: 'failure', retry: true },
  refused: { speed: 'hold', breaker: 'failure', retry: true },
  timeout: { speed: 'cut', breaker: 'failure', retry: true },
  'client-error': { speed: 'hold', breaker: 'success', retry: false },
  'server-error': { speed: 'hold', breaker: 'none', retry: true },
});
