import type { BreakerOptions } from '../algorithms/breaker-policy.js';
import type { ConcurrencyLimit, RatePolicy } from '../algorithms/sample.js';
import { type Clock, systemClock } from '../clock.js';
import type { EventSink } from '../events/event.js';
import { given, number, required } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { type Random, systemRandom } from '../random.js';
import type { StateStore } from '../store/store.js';
import type { LatencyGuardOptions } from './latency-guard.js';
import type { RetryBudgetOptions } from './retry-budget.js';

/** The algorithms and settings of one scope. */
export interface ScopeSetup {
  /** The concurrency-limit algorithm. */
  limit: ConcurrencyLimit;
  /** The rate algorithm. */
  rate: RatePolicy;
  /** Breaker options, or `false` for none. @default {} */
  breaker?: BreakerOptions | false;
  /** Pacer burst. @default 1 */
  burst?: number;
  /** The scope's retry allowance. @default {} */
  retryBudget?: RetryBudgetOptions;
  /** Soft-throttling detection, or `false` for none. @default {} */
  latencyGuard?: LatencyGuardOptions | false;
  /** Longest one response may pause the scope, ms. @default 300000 */
  maxPauseMs?: number;
}

/**
 * Builds a new scope's algorithms and settings, fresh: the registry resumes
 * them from what the store held for the scope (see `ConcurrencyLimit.restore`).
 */
export type ScopeFactory = (scope: string) => ScopeSetup;

/** Options for {@link ScopeRegistry}. */
export interface ScopeRegistryOptions {
  /** Builds each new scope's algorithms. */
  setup: ScopeFactory;
  /** Time source. @default systemClock */
  clock?: Clock;
  /** Randomness. @default systemRandom */
  random?: Random;
  /** Receives every decision of every scope. */
  events?: EventSink;
  /** Shared scope state. @default new MemoryStore() (10,000 scopes, 1 hour) */
  store?: StateStore;
  /**
   * A scope with nothing in flight or waiting for this long is evicted (its
   * state saved to the store first).
   * @default 600000
   */
  idleMs?: number;
  /**
   * Longest known pause (Retry-After, spent quota, open breaker) a request
   * waits through; one that would wait longer fails at once with a
   * `ScopePausedError` saying until when and why.
   * @default Infinity
   */
  maxPauseWaitMs?: number;
}

const NO_LESS_THAN_ZERO = { min: 0, infinite: true };

/** Validates {@link ScopeRegistryOptions}, applying the defaults but the store's (built on the clock). */
export const readScopeRegistryOptions = defineOptions<ScopeRegistryOptions>()('ScopeRegistry', {
  setup: required<ScopeFactory>(
    'a function (scope) => ({ limit, rate, … })',
    (value) => typeof value === 'function',
  ),
  clock: given(systemClock),
  random: given(systemRandom),
  events: given(),
  store: given(),
  idleMs: number(600_000, NO_LESS_THAN_ZERO),
  maxPauseWaitMs: number(Infinity, NO_LESS_THAN_ZERO),
});
