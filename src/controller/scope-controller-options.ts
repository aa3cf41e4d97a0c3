import type { BreakerOptions, BreakerSnapshot } from '../algorithms/breaker-policy.js';
import type { ConcurrencyLimit, RatePolicy } from '../algorithms/sample.js';
import { type Clock, systemClock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { given, number, required } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { type Random, systemRandom } from '../random.js';
import type { LatencyGuardOptions } from './latency-guard.js';
import { DEFAULT_MAX_PAUSE_MS } from './pause-cap.js';
import type { RetryBudgetOptions } from './retry-budget.js';

/** Options for {@link ScopeController}. */
export interface ScopeControllerOptions {
  /** Time source. @default systemClock */
  clock?: Clock;
  /** Randomness (breaker jitter). @default systemRandom */
  random?: Random;
  /** The concurrency-limit algorithm. Required: pass e.g. `new AimdLimit()`. */
  limit: ConcurrencyLimit;
  /** The rate algorithm. Required: pass e.g. `new AdaptiveRate()`. */
  rate: RatePolicy;
  /** Breaker options, or `false` for no breaker. @default {} */
  breaker?: BreakerOptions | false;
  /** Initial breaker state, on this controller's clock (the registry converts a stored one). */
  breakerState?: BreakerSnapshot;
  /** Requests the pacer lets through back to back after an idle spell. @default 1 */
  burst?: number;
  /** The scope's allowance of retries. @default {} */
  retryBudget?: RetryBudgetOptions;
  /** Soft-throttling detection (latency against the scope's fastest window), or `false` for none. @default {} */
  latencyGuard?: LatencyGuardOptions | false;
  /** Receives every decision. */
  events?: EventSink;
  /**
   * Longest one response may pause the scope, ms: a longer Retry-After, or
   * the reset of a spent quota further away, is read as this. When it ends
   * one request asks again; a server that means a longer pause says so again.
   * @default 300000 (5 minutes)
   */
  maxPauseMs?: number;
  /**
   * Longest known pause (Retry-After, spent quota, open breaker) a request
   * waits through before admission fails at once with a `ScopePausedError`
   * saying until when and why; a wait's own `maxPauseWaitMs` overrides it.
   * @default Infinity
   */
  maxPauseWaitMs?: number;
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null;
const NO_LESS_THAN_ZERO = { min: 0, infinite: true };

/** Validates {@link ScopeControllerOptions}, applying the defaults. */
export const readScopeControllerOptions = defineOptions<ScopeControllerOptions>()(
  'ScopeController',
  {
    clock: given(systemClock),
    random: given(systemRandom),
    limit: required<ConcurrencyLimit>('a ConcurrencyLimit such as new AimdLimit()', isObject),
    rate: required<RatePolicy>('a RatePolicy such as new AdaptiveRate()', isObject),
    breaker: given(),
    breakerState: given(),
    burst: number(1, { min: 1 }),
    retryBudget: given(),
    latencyGuard: given(),
    events: given(),
    maxPauseMs: number(DEFAULT_MAX_PAUSE_MS, NO_LESS_THAN_ZERO),
    maxPauseWaitMs: number(Infinity, NO_LESS_THAN_ZERO),
  },
);
