export type { ScopeControllerOptions } from './scope-controller-options.js';

import { breakerSettings } from '../algorithms/breaker-policy.js';
import type { Clock } from '../clock.js';
import type { WaitOptions } from '../enforce/wait-queue.js';
import type { BreakerState, ControlEvent, ControlEventType } from '../events/event.js';
import type { ScopeState, StateStore } from '../store/store.js';
import { Admission } from './admission.js';
import { guardSettings } from './latency-guard.js';
import type { Permit } from './permit.js';
import { RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
import {
  readScopeControllerOptions,
  type ScopeControllerOptions,
} from './scope-controller-options.js';
import { ScopeEvents } from './scope-events.js';
import { ScopeFeedback } from './scope-feedback.js';
import { ScopeOutcomes } from './scope-outcomes.js';
import { readClocks, saveScope } from './scope-state.js';

/**
 * The control loop of one rate-limit scope. It joins a concurrency limit
 * (semaphore), a rate (pacer) and a breaker behind one call: `admit()` waits
 * until all three allow a request (see {@link Admission}), and the returned
 * {@link Permit} feeds the request's outcome back (see {@link ScopeOutcomes})
 * into the algorithms (see {@link ScopeFeedback}), which resize the semaphore
 * and re-pace the pacer. Every decision is emitted as a {@link ControlEvent}.
 */
export class ScopeController {
  /** The scope key, e.g. `host:example.com`. */
  readonly scope: string;
  readonly #clock: Clock;
  readonly #admission: Admission;
  readonly #feedback: ScopeFeedback;
  readonly #outcomes: ScopeOutcomes;
  readonly #retryBudgetOptions: RetryBudgetOptions | undefined;
  #retryBudget: RetryBudget | undefined;

  constructor(scope: string, options: ScopeControllerOptions) {
    const settings = readScopeControllerOptions(options);
    this.scope = scope;
    this.#clock = settings.clock;
    const log = options.events ? new ScopeEvents(options.events, this) : undefined;
    if (options.breaker !== false) breakerSettings(options.breaker ?? {}); // validate now
    this.#admission = new Admission({
      scope,
      clock: this.#clock,
      random: settings.random,
      limit: options.limit.limit,
      burst: settings.burst,
      breaker: options.breaker,
      breakerState: options.breakerState,
      maxPauseWaitMs: settings.maxPauseWaitMs,
      log,
    });
    if (options.latencyGuard) guardSettings(options.latencyGuard); // validate now
    this.#feedback = new ScopeFeedback(
      options.limit,
      options.rate,
      settings.maxPauseMs,
      options.latencyGuard,
    );
    this.#outcomes = new ScopeOutcomes({
      controller: this,
      clock: this.#clock,
      admission: this.#admission,
      feedback: this.#feedback,
      log,
    });
    this.#retryBudgetOptions = options.retryBudget;
    if (options.retryBudget) this.#retryBudget = new RetryBudget(options.retryBudget);
  }

  /** The scope's allowance of retries (created on first use). */
  get retryBudget(): RetryBudget {
    this.#retryBudget ??= new RetryBudget(this.#retryBudgetOptions);
    return this.#retryBudget;
  }

  /** Current concurrency limit. */
  get limit(): number {
    return this.#admission.limit;
  }

  /** Current pacing rate in requests/s (`Infinity` when unpaced). */
  get rate(): number {
    return this.#admission.rate;
  }

  /** Requests admitted and not yet reported. */
  get inflight(): number {
    return this.#outcomes.sent;
  }

  /** Time left of a pause the server asked for (Retry-After, a spent quota), ms; 0 when none. */
  get pauseLeftMs(): number {
    return Math.max(0, this.#admission.pausedUntil - this.#clock.now());
  }

  /** Callers waiting for admission. */
  get queued(): number {
    return this.#admission.queued;
  }

  /**
   * The pause pending, if any — the server's (Retry-After, a spent quota) or
   * an open breaker's: when it ends (monotonic ms) and why.
   */
  get pause(): { until: number; reason: string } | undefined {
    return this.#admission.pause(this.#clock.now());
  }

  /** The breaker's state (`closed` when there is no breaker). */
  get breaker(): BreakerState {
    return this.#admission.breaker;
  }

  /** Monotonic ms of the last admission or outcome. */
  get lastUsed(): number {
    return this.#outcomes.lastUsed;
  }

  /** Whether nothing is in flight or waiting (the scope may be evicted). */
  get idle(): boolean {
    return this.inflight === 0 && this.queued === 0 && this.#admission.inflight === 0;
  }

  /**
   * Stops this scope's timers and rejects every caller waiting for admission
   * with `reason`; requests already admitted may still report. For shutdown.
   */
  close(reason: unknown): void {
    this.#admission.close(reason);
  }

  /** What this scope has learned, as plain data for a {@link StateStore} (times wall-clock). */
  snapshot(): ScopeState {
    const { limit, rate } = this.#feedback;
    const breaker = this.#admission.breakerSnapshot();
    return saveScope({ limit, rate, breaker }, readClocks(this.#clock));
  }

  /**
   * Re-reads the limit and the rate from the algorithms, for algorithms whose
   * numbers change from outside (a fleet's shared state in `ratewise/redis`).
   */
  refresh(): void {
    this.#admission.setLimit(this.#feedback.limit.limit);
    this.#outcomes.applyRate(this.#clock.now());
  }

  /** Admits a request at once if breaker, limit and rate all allow it; never waits. */
  tryAdmit(): Permit | undefined {
    const pass = this.#admission.tryPass();
    return pass === undefined ? undefined : this.#outcomes.grant(pass);
  }

  /** Waits until breaker, limit and rate all allow a request, then admits it. */
  admit(options?: WaitOptions): Promise<Permit> {
    const permit = this.tryAdmit();
    return permit ? Promise.resolve(permit) : this.#admission.pass(options, this.#outcomes);
  }

  /** An event of `type` carrying this scope's current numbers. */
  describe(type: ControlEventType, reason: string): ControlEvent {
    const rate = this.rate;
    return {
      t: this.#clock.now(),
      wall: this.#clock.wallNow(),
      scope: this.scope,
      type,
      limit: this.#admission.limit,
      rate: rate === Infinity ? null : rate,
      inflight: this.inflight,
      queued: this.queued,
      reason,
    };
  }
}
