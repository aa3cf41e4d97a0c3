import type { BreakerOptions, BreakerSnapshot } from '../algorithms/breaker-policy.js';
import { BreakerPolicy, breakerSettings } from '../algorithms/breaker-policy.js';
import { RecentMax } from '../algorithms/recent-max.js';
import type { AlarmAction, ConcurrencyLimit, RatePolicy, Sample } from '../algorithms/sample.js';
import { type Clock, systemClock } from '../clock.js';
import { BreakerGate, type Pass } from '../enforce/breaker-gate.js';
import { Pacer } from '../enforce/pacer.js';
import { PauseGuard } from '../enforce/pause-guard.js';
import { Semaphore } from '../enforce/semaphore.js';
import { deadlineOf, untilDeadline, type WaitOptions } from '../enforce/wait-queue.js';
import { outcomesObserved, publishOutcome, publishRelease } from '../events/diagnostics.js';
import type { BreakerState, ControlEvent, ControlEventType, EventSink } from '../events/event.js';
import { numberOption, rejectUnknownOptions } from '../options.js';
import { type Random, systemRandom } from '../random.js';
import { REACTIONS, type Signal } from '../signal.js';
import type { ScopeState, StateStore } from '../store/store.js';
import { guardSettings, LatencyGuard, type LatencyGuardOptions } from './latency-guard.js';
import { OverloadFilter } from './overload-filter.js';
import { capPause, type PauseLimits, pauseLimits } from './pause-cap.js';
import type { OutcomeDetails, Permit } from './permit.js';
import { RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
import { ScopeEvents, type ScopeNumbers } from './scope-events.js';
import { type PermitOwner, ScopePermit } from './scope-permit.js';

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
  /** Initial breaker state, e.g. loaded from a shared store. */
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

/** How many recent successes the highest accepted concurrency is taken over. */
const RECENT_ACCEPTED = 32;

const KNOWN = [
  'clock',
  'random',
  'limit',
  'rate',
  'breaker',
  'breakerState',
  'burst',
  'retryBudget',
  'latencyGuard',
  'events',
  'maxPauseMs',
  'maxPauseWaitMs',
] as const;

/**
 * The control loop of one rate-limit scope. It joins a concurrency limit
 * (semaphore), a rate (pacer) and a breaker behind one call: `admit()` waits
 * until all three allow a request, and the returned {@link Permit} feeds the
 * request's outcome back into the algorithms, which resize the semaphore and
 * re-pace the pacer. Every decision is emitted as a {@link ControlEvent}.
 */
export class ScopeController implements PermitOwner {
  /** The scope key, e.g. `host:example.com`. */
  readonly scope: string;
  readonly #clock: Clock;
  readonly #limit: ConcurrencyLimit;
  readonly #rate: RatePolicy;
  readonly #semaphore: Semaphore;
  readonly #burst: number;
  readonly #random: Random;
  readonly #breakerOptions: BreakerOptions | false | undefined;
  readonly #breakerState: BreakerSnapshot | undefined;
  /** Created when the rate first becomes finite or the server asks for a pause. */
  #pacer: Pacer | undefined;
  /** Created at the first failure (or from a saved state): a healthy scope needs none. */
  #gate: BreakerGate | undefined;
  readonly #log: ScopeEvents | undefined;

  readonly #retryBudgetOptions: RetryBudgetOptions | undefined;
  readonly #guardOptions: LatencyGuardOptions | false | undefined;
  /** Created with the first success: a scope with no traffic needs no latency window. */
  #guard: LatencyGuard | undefined;
  #retryBudget: RetryBudget | undefined;
  readonly #pauseLimits: PauseLimits;
  /** Created with the first pause or wait: what the scope is paused for, and who cannot wait that long. */
  #pauses: PauseGuard | undefined;
  readonly #overload = new OverloadFilter();
  /** The in-flight counts recent successes were sent at. */
  readonly #acceptedInflight = new RecentMax(RECENT_ACCEPTED);
  /** Since when the rate has been paced (Infinity while unpaced). */
  #pacedSince = Infinity;
  #sent = 0;
  /** Whole ms, so the field stays a small integer rather than a boxed double. */
  #lastUsed: number;

  constructor(scope: string, options: ScopeControllerOptions) {
    rejectUnknownOptions('ScopeController', options, KNOWN);
    this.scope = scope;
    this.#clock = options.clock ?? systemClock;
    this.#limit = options.limit;
    this.#rate = options.rate;
    if (options.events)
      this.#log = new ScopeEvents(options.events, (type, reason) => this.describe(type, reason));
    this.#semaphore = new Semaphore(options.limit.limit, this.#clock);
    this.#burst = numberOption('ScopeController', 'burst', options.burst, 1, { min: 1 });
    this.#random = options.random ?? systemRandom;
    this.#breakerOptions = options.breaker;
    if (options.breaker !== false) breakerSettings(options.breaker ?? {}); // validate now
    this.#breakerState = options.breakerState;
    this.#pauseLimits = pauseLimits(options);
    if (options.breakerState?.state === 'open') {
      this.#breakerGate();
      this.#notePause(this.#clock.now(), 'an open breaker (saved state)');
    }
    this.#applyRate(this.#clock.now());
    this.#retryBudgetOptions = options.retryBudget;
    this.#guardOptions = options.latencyGuard;
    if (options.latencyGuard) guardSettings(options.latencyGuard); // validate now
    if (options.retryBudget) this.#retryBudget = new RetryBudget(options.retryBudget);
    this.#lastUsed = Math.floor(this.#clock.now());
  }

  /** The scope's allowance of retries (created on first use). */
  get retryBudget(): RetryBudget {
    this.#retryBudget ??= new RetryBudget(this.#retryBudgetOptions);
    return this.#retryBudget;
  }

  /** Current concurrency limit. */
  get limit(): number {
    return this.#semaphore.limit;
  }

  /** Current pacing rate in requests/s (`Infinity` when unpaced). */
  get rate(): number {
    return this.#pacer?.rate ?? Infinity;
  }

  /** Requests admitted and not yet reported. */
  get inflight(): number {
    return this.#sent;
  }

  /** Time left of a pause the server asked for (Retry-After, a spent quota), ms; 0 when none. */
  get pauseLeftMs(): number {
    return Math.max(0, (this.#pacer?.pausedUntil ?? 0) - this.#clock.now());
  }

  /** Callers waiting for admission. */
  get queued(): number {
    return (this.#gate?.queued ?? 0) + this.#semaphore.queued + (this.#pacer?.queued ?? 0);
  }

  /**
   * The pause pending, if any — the server's (Retry-After, a spent quota) or
   * an open breaker's: when it ends (monotonic ms) and why.
   */
  get pause(): { until: number; reason: string } | undefined {
    return this.#pauses?.current(this.#clock.now());
  }

  /** The breaker's state (`closed` when there is no breaker). */
  get breaker(): BreakerState {
    return this.#gate?.state ?? 'closed';
  }

  /** Monotonic ms of the last admission or outcome. */
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** Whether nothing is in flight or waiting (the scope may be evicted). */
  get idle(): boolean {
    return this.#sent === 0 && this.queued === 0 && this.#semaphore.inflight === 0;
  }

  /**
   * Stops this scope's timers and rejects every caller waiting for admission
   * with `reason`; requests already admitted may still report. For shutdown.
   */
  close(reason: unknown): void {
    this.#gate?.close(reason);
    this.#semaphore.close(reason);
    this.#pacer?.close(reason);
  }

  /** What this scope has learned, as plain data for a {@link StateStore}. */
  snapshot(): ScopeState {
    const state: ScopeState = {
      limit: this.#limit.toJSON(),
      rate: this.#rate.toJSON(),
      savedAt: this.#clock.wallNow(),
      savedMonotonic: this.#clock.now(),
    };
    const breaker = this.#gate?.snapshot() ?? this.#breakerState;
    if (breaker) state.breaker = breaker;
    return state;
  }

  /**
   * Re-reads the limit and the rate from the algorithms, for algorithms whose
   * numbers change from outside (a fleet's shared state in `ratewise/redis`).
   */
  refresh(): void {
    this.#semaphore.setLimit(this.#limit.limit);
    this.#applyRate(this.#clock.now());
  }

  /** Admits a request at once if breaker, limit and rate all allow it; never waits. */
  tryAdmit(): Permit | undefined {
    const pass = this.#gate ? this.#gate.tryPass() : 'pass';
    if (pass === undefined) return undefined;
    if (pass === 'probe')
      return this.#serverPause() > 0 ? this.#giveBack(pass, false) : this.#grantProbe();
    if (!this.#semaphore.tryAcquire()) return this.#giveBack(pass, false);
    if (this.#pacer !== undefined && !this.#pacer.tryTake()) return this.#giveBack(pass, true);
    return this.#grant(pass);
  }

  /** Waits until breaker, limit and rate all allow a request, then admits it. */
  admit(options?: WaitOptions): Promise<Permit> {
    const permit = this.tryAdmit();
    return permit ? Promise.resolve(permit) : this.#admitSlowly(options);
  }

  async #admitSlowly(options: WaitOptions | undefined): Promise<Permit> {
    const deadline = deadlineOf(options, this.#clock.now());
    // A request that will not outlast the pause fails now, not after waiting in silence.
    const guarded = this.#pauseGuard().enter(options, deadline);
    try {
      return await this.#waitForAdmission(guarded.options, deadline);
    } finally {
      guarded.leave();
    }
  }

  async #waitForAdmission(options: WaitOptions | undefined, deadline: number): Promise<Permit> {
    const stage = (): WaitOptions => untilDeadline(options, deadline, this.#clock.now());
    for (;;) {
      const passing = this.#pass(stage);
      const pass = typeof passing === 'string' ? passing : await passing;
      if (pass === 'probe') return this.#probeAfterPause(stage());
      try {
        await this.#semaphore.acquire(stage());
      } catch (error) {
        this.#gate?.abandon(pass);
        throw error;
      }
      try {
        if (this.#pacer !== undefined) await this.#pacer.take(stage());
      } catch (error) {
        this.#giveBack(pass, true);
        throw error;
      }
      // The breaker may have opened while we queued for a slot or a token: park again.
      if (this.breaker === 'closed') return this.#grant(pass);
      this.#giveBack(pass, true);
    }
  }

  /** Ms left in the server's pause (the pacer's), 0 when none. */
  #serverPause(): number {
    const until = this.#pacer?.pausedUntil ?? 0;
    return until === 0 ? 0 : Math.max(0, until - this.#clock.now());
  }

  /**
   * The half-open probe waits out the server's pause (the breaker may
   * half-open sooner: `maxCooldownMs` caps it, not the pause), then goes.
   */
  async #probeAfterPause(options: WaitOptions): Promise<Permit> {
    for (let left = this.#serverPause(); left > 0; left = this.#serverPause()) {
      try {
        await this.#clock.sleep(left, options.signal);
      } catch (error) {
        this.#gate?.abandon('probe');
        throw error;
      }
    }
    return this.#grantProbe();
  }

  /** Hands the rate algorithm's rate and pause to the pacer, creating it once pacing is needed. */
  #applyRate(now: number): void {
    const rate = this.#rate.rate;
    this.#pacedSince = rate === Infinity ? Infinity : Math.min(this.#pacedSince, now);
    const pausedUntil = this.#rate.pausedUntil;
    if (this.#pacer === undefined && rate === Infinity && !(pausedUntil > now)) return;
    this.#pacer ??= new Pacer({ rate, burst: this.#burst, clock: this.#clock });
    this.#pacer.setRate(rate);
    if (pausedUntil > now) this.#pacer.pauseUntil(pausedUntil);
  }

  #pauseGuard(): PauseGuard {
    this.#pauses ??= new PauseGuard(this.scope, this.#clock, this.#pauseLimits.maxPauseWaitMs);
    return this.#pauses;
  }

  /** Tells the pause guard of the pause the pacer or the breaker now holds, and its cause. */
  #notePause(at: number, cause: string): void {
    const paced = this.#pacer?.pausedUntil ?? 0;
    const open = this.#gate?.openUntil ?? 0;
    if (paced > at || open > at) this.#pauseGuard().note(paced, open, cause);
  }

  /** The breaker gate, created on first use; undefined when the breaker is disabled. */
  #breakerGate(): BreakerGate | undefined {
    if (this.#gate !== undefined || this.#breakerOptions === false) return this.#gate;
    const policy = new BreakerPolicy(this.#random, this.#breakerOptions, this.#breakerState);
    this.#gate = new BreakerGate(policy, this.#clock, (state, reason) =>
      this.#log?.breaker(state, reason),
    );
    return this.#gate;
  }

  /** Passes the breaker, synchronously when it is closed, so queue counts stay exact. */
  #pass(stage: () => WaitOptions): Pass | Promise<Pass> {
    if (this.#gate === undefined) return 'pass';
    return this.#gate.tryPass() ?? this.#gate.pass(stage());
  }

  #giveBack(pass: Pass, heldSlot: boolean): undefined {
    if (heldSlot) this.#semaphore.release();
    this.#gate?.abandon(pass);
    return undefined;
  }

  /**
   * The half-open probe goes at once: it is the breaker's one question to the
   * server, and callers parked at the semaphore or the pacer were admitted
   * before the breaker opened — the probe must not wait behind them.
   */
  #grantProbe(): Permit {
    this.#semaphore.forceAcquire();
    return this.#grant('probe');
  }

  #grant(pass: Pass): Permit {
    this.#sent++;
    const now = this.#clock.now();
    this.#lastUsed = Math.floor(now);
    return new ScopePermit(this, pass, now, this.#sent);
  }

  /** @internal A request ended without an outcome: free its slot (called by its permit). */
  _release(permit: ScopePermit): void {
    this.#sent--;
    this.#giveBack(permit.pass, true);
    publishRelease(this, permit.sentAt, this.#clock.now());
  }

  /**
   * @internal A request's outcome (called by its permit): feed the algorithms,
   * resize and re-pace, then free its slot.
   */
  _complete(permit: ScopePermit, reported: Signal, details: OutcomeDetails | undefined): void {
    const at = this.#clock.now();
    this.#lastUsed = Math.floor(at);
    const capped = capPause(reported, this.#pauseLimits.maxPauseMs);
    const heard = capped?.signal ?? reported;
    const signal = this.#overload.judge(heard);
    const sample = this.#sampleOf(permit, at, signal);
    const before = this.#log || outcomesObserved() ? this.#numbers() : undefined;
    this.#limit.onSample(sample);
    this.#rate.onSample(sample);
    const alarm = signal.kind === 'ok' ? this.#watchLatency(permit.sentAt, at) : undefined;
    this.#semaphore.setLimit(this.#limit.limit);
    this.#applyRate(at);
    this.#sent--;
    this.#semaphore.release();
    const effect = REACTIONS[signal.kind].breaker;
    if (effect === 'failure' || this.#gate !== undefined) {
      this.#breakerGate()?.report({
        sentAt: permit.sentAt,
        at,
        effect,
        probe: permit.pass === 'probe',
        retryAfterMs: signal.retryAfterMs ?? 0,
      });
    }
    if (capped !== undefined || effect === 'failure')
      this.#notePause(at, capped?.cause ?? signal.reason);
    if (before === undefined) return;
    const after = this.#numbers();
    // Observers see the outcome as it was classified; the filter only changed the reaction.
    const seen = signal === heard ? sample : { ...sample, signal: heard };
    publishOutcome(this, seen, before, after);
    if (this.#log) {
      this.#log.outcome(seen, details, before, after, capped?.cause);
      if (alarm) this.#log.alarm(alarm, this.#guard?.ratio ?? 0, before.rate, this.rate);
    }
  }

  /**
   * The sample an outcome makes. A refusal sent at more in flight than any
   * recent success is marked as refused for its concurrency — unless it was
   * sent unpaced (a slow start raises both at once) or the rate was probing,
   * which raises the concurrency too and is the likelier cause.
   */
  #sampleOf(permit: ScopePermit, at: number, signal: Signal): Sample {
    const inflight = permit.inflightAtSend;
    const sample: Sample = {
      sentAt: permit.sentAt,
      at,
      inflight,
      signal,
      outstanding: this.#sent - 1,
    };
    if (signal.kind === 'ok') this.#acceptedInflight.add(inflight);
    else if (
      signal.kind === 'throttled' &&
      permit.sentAt >= this.#pacedSince &&
      this.#rate.probing !== true
    ) {
      const accepted = this.#acceptedInflight.max;
      sample.overConcurrency = accepted !== undefined && inflight > accepted;
    }
    return sample;
  }

  #numbers(): ScopeNumbers {
    return {
      limit: this.#semaphore.limit,
      rate: this.rate,
      pausedUntil: this.#pacer?.pausedUntil ?? 0,
    };
  }

  /** Feeds a success's latency to the guard; an alarm action goes to the rate algorithm. */
  #watchLatency(sentAt: number, at: number): AlarmAction | undefined {
    if (this.#guardOptions === false) return undefined;
    this.#guard ??= new LatencyGuard(this.#guardOptions);
    const action = this.#guard.observe(sentAt, at);
    if (action) this.#rate.onAlarm?.(at, action);
    return action;
  }

  /** An event of `type` carrying this scope's current numbers. */
  describe(type: ControlEventType, reason: string): ControlEvent {
    const rate = this.rate;
    return {
      t: this.#clock.now(),
      wall: this.#clock.wallNow(),
      scope: this.scope,
      type,
      limit: this.#semaphore.limit,
      rate: rate === Infinity ? null : rate,
      inflight: this.#sent,
      queued: this.queued,
      reason,
    };
  }
}
