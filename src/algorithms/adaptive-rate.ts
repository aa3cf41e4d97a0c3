import type { RateLimitQuota } from '../headers/quota.js';
import {
  type AdaptiveRateOptions,
  type AdaptiveRateSettings,
  adaptiveRateSettings,
} from './adaptive-rate-options.js';
import { rateSnapshot, restoreRate } from './adaptive-rate-snapshot.js';
import type { AdaptiveRateState } from './adaptive-rate-state.js';
import { cutOnRefusal } from './ceiling-cut.js';
import type { ClockReading } from './clock-reading.js';
import { speedOf } from './congestion.js';
import { probingRate } from './probe-curve.js';
import { Prober } from './prober.js';
import { QuotaPace } from './quota-pace.js';
import { freshDecisions, type RateDecisions } from './rate-decisions.js';
import { RateMeter } from './rate-meter.js';
import { RateParts } from './rate-parts.js';
import { RefusalPause } from './refusal-pause.js';
import { type AlarmAction, isRefusal, type RatePolicy, type Sample } from './sample.js';

/** A probe's clock runs only while the server is accepting at least this share of what is sent. */
const IN_USE = 0.6;
/** Idleness is judged only when a window should hold at least this many requests. */
const MIN_JUDGED = 8;
const NO_OPTIONS: AdaptiveRateOptions = Object.freeze({});

/**
 * The sending rate of one scope, learned from outcomes: it finds the highest
 * rate the server accepts and paces just below it, without being told.
 *
 * - Unpaced at first (unless `startRate`): the concurrency limit governs.
 * - On throttling, once per congestion event, it learns the ceiling: the rate
 *   the server granted before refusing (see {@link RateMeter.ceilingAt};
 *   recounted by send time once the outcomes it needs are in), and holds a
 *   `margin` below it. The margin widens when the held rate is refused and
 *   narrows when a probe finds the same ceiling again.
 * - It probes above the ceiling when the {@link Prober}'s budget can pay for it:
 *   the refusals and pauses recent probes cost, earned at `refusedShare` of
 *   the requests and `pausedShare` of the time. A probe starts `probeStep`
 *   above the ceiling and doubles its excess every `probeDoublingMs` until
 *   refused, so an unchanged capacity costs a refusal or two and a capacity
 *   that rose is followed within seconds. Its clock stops while the server
 *   accepts less than 60 % of what is offered (a rate nobody uses is not
 *   probing).
 * - The server's word wins: `documentedRate` always caps; a published quota
 *   caps at limit/window and spreads `remaining` over the time to the reset;
 *   a spent quota pauses until the reset; `Retry-After` pauses (at least
 *   `minPauseMs`). Quota information expires when its window resets.
 */
export class AdaptiveRate implements RatePolicy {
  readonly #s: AdaptiveRateSettings;
  readonly #meter: RateMeter;
  readonly #prober: Prober;
  readonly #d: RateDecisions;
  /** The parts cuts and snapshots read and move (the meter and prober among them). */
  readonly #parts: RateParts;
  /** Created with the first sample that is no success: most scopes are never refused. */
  #refusalPause: RefusalPause | undefined;
  /** Time of the latest sample. */
  #now = -Infinity;

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   */
  constructor(options: AdaptiveRateOptions = NO_OPTIONS) {
    const settings = adaptiveRateSettings(options);
    this.#s = settings;
    const meter = new RateMeter(settings.windowMs);
    const prober = new Prober(settings);
    [this.#meter, this.#prober, this.#d] = [meter, prober, freshDecisions(settings.margin)];
    this.#parts = new RateParts(settings, meter, prober);
    if (this.#s.startRate !== Infinity) {
      this.#d.ceiling = this.#s.startRate;
      this.#prober.setProbe(0);
    }
  }

  /** Current rate in requests/s; `Infinity` means unpaced. Never NaN, never above `documentedRate`. */
  get rate(): number {
    return Math.min(this.#learnedRate(), this.#s.documentedRate, this.#quotaCap());
  }

  /** Monotonic ms before which nothing may be sent (a server-requested pause); 0 when none. */
  get pausedUntil(): number {
    return this.#meter.pausedUntil;
  }

  /** The learned ceiling in requests/s (the server's capacity as last measured), if any. */
  get ceiling(): number | undefined {
    return this.#d.ceiling > 0 ? this.#d.ceiling : undefined;
  }

  /** Whether the rate is probing above the ceiling right now. */
  get probing(): boolean {
    return this.#prober.probeMs !== undefined;
  }

  /** Updates the rate and pause from one sample, its Retry-After and its quota. */
  onSample(sample: Sample): void {
    const { at, signal } = sample;
    if (!Number.isFinite(at) || !Number.isFinite(sample.sentAt)) return;
    const activeMs = this.#meter.advance(sample, this.rate);
    if (this.#prober.probeMs !== undefined && !this.#idle(at)) {
      // One sample moves the probe at most one window: after a silence it resumes, not leaps.
      this.#prober.advance(Math.min(activeMs, this.#meter.windowMs));
    }
    this.#now = Math.max(this.#now, at);
    const speed = speedOf(sample);
    this.#prober.onRequest();
    const closed =
      isRefusal(sample) &&
      !sample.overConcurrency &&
      this.#meter.refusedOnResume(sample, this.rate);
    // A refusal for its concurrency is the concurrency limit's to learn from;
    // one while a published quota paced the sends, the quota's (it pauses to
    // the reset); one as sending resumed after a pause, the pause's (it was too short).
    if (closed) this.#prober.onRefusal();
    else if (
      (speed === 'cut' || speed === 'cut-hard') &&
      !sample.overConcurrency &&
      !this.#quotaBinds()
    )
      this.#cut(sample, speed);
    else if (speed === 'grow' || speed === 'hold') {
      this.#meter.accept(sample);
      this.#applyRecount(at);
    }
    if (speed !== 'grow') {
      this.#refusalPause ??= new RefusalPause();
      const pauseMs = this.#refusalPause.forSample(sample, closed, this.#meter, this.#s.minPauseMs);
      if (pauseMs > 0) this.#pause(at, pauseMs, !closed);
    }
    if (signal.quota !== undefined) this.#applyQuota(signal.quota, sample);
    this.#prober.onTime(at);
    if (this.#prober.probeMs === undefined) this.#maybeProbe(at);
  }

  /**
   * A soft-throttling alarm (latency inflating with no error): `slow-down`
   * cuts to a quarter of what the server is serving (later cuts of the same
   * alarm: half) and holds there; `futile` restores what was learned before
   * the alarm (slowing down did not help); `cleared` keeps the lower rate as
   * the ceiling to probe up from.
   */
  onAlarm(at: number, action: AlarmAction): void {
    const served = Math.min(this.#learnedRate(), this.#meter.accepted(at) ?? Infinity);
    if (!this.#parts.alarm.apply(action, at, this.#d, served, this.#s.minRate)) return;
    this.#prober.setProbe(undefined);
    this.#prober.openBudget(at);
  }

  /** Plain state for a store, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): AdaptiveRateState {
    return rateSnapshot(this.#d, this.#parts, clocks);
  }

  /**
   * Resumes a fresh policy from a {@link AdaptiveRate.snapshot} taken in this
   * process or another (`clocks` pairs this one's clocks now). Each field is
   * validated (an `InvalidOptionError` names a malformed one); missing fields
   * keep their fresh value.
   */
  restore(saved: Readonly<Record<string, unknown>>, clocks: ClockReading): void {
    restoreRate(saved, this.#d, this.#parts, clocks);
  }

  /** Whether the server accepts clearly less than the rate (so a probe tests nothing: the demand or the concurrency limit binds). */
  #idle(at: number): boolean {
    const rate = this.#learnedRate();
    if ((rate * this.#meter.windowMs) / 1000 < MIN_JUDGED) return false;
    const accepted = this.#meter.accepted(at);
    return accepted !== undefined && accepted < IN_USE * rate;
  }

  /** Starts a probe once the hold is over, no pause is pending and the budget can pay for it. */
  #maybeProbe(at: number): void {
    this.#prober.maybeStart({
      at,
      ceiling: this.#d.ceiling,
      holdUntil: this.#d.holdUntil,
      pausedUntil: this.#meter.pausedUntil,
      quotaBinds: () => this.#quotaBinds(),
    });
  }

  /** Pauses `ms` from `at`; `billed`: the pause is part of the current congestion event's cost (not a server still closed after it). */
  #pause(at: number, ms: number, billed: boolean): void {
    const before = Math.max(at, this.#meter.pausedUntil);
    this.#meter.pause(at, ms);
    if (billed) this.#prober.onPause(Math.max(0, this.#meter.pausedUntil - before));
    this.#d.holdUntil = Math.max(this.#d.holdUntil, this.#meter.pausedUntil);
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    const probeStartedAt = this.#now - (this.#prober.probeMs ?? 0);
    cutOnRefusal(this.#d, sample, speed, this.#learnedRate(), probeStartedAt, this.#parts);
  }

  /** Replaces the ceiling by its recount, once the outcomes it needs are in. */
  #applyRecount(at: number): void {
    const counted = this.#parts.recountsIfAny?.due(at, this.#meter, this.#d.ceiling, (pauseMs) =>
      this.#prober.chargeFirstCount(pauseMs),
    );
    if (counted === undefined) return;
    this.#parts.alarmIfAny?.forget();
    this.#d.ceiling = counted;
  }

  #applyQuota(quota: RateLimitQuota, sample: Sample): void {
    this.#parts.quota ??= new QuotaPace();
    const pauseUntil = this.#parts.quota.onQuota(quota, sample);
    if (pauseUntil > sample.at) this.#meter.pause(sample.at, pauseUntil - sample.at);
  }

  /** Whether a published quota, not the learned ceiling, sets the pace now. */
  #quotaBinds(): boolean {
    return this.#parts.quota !== undefined && this.#quotaCap() <= this.#learnedRate();
  }

  #quotaCap(): number {
    return this.#parts.quota?.cap(this.#now) ?? Infinity;
  }

  /** The learned rate (before caps); `Infinity` while unpaced. */
  #learnedRate(): number {
    const { ceiling, margin } = this.#d;
    if (ceiling === 0) return Infinity;
    const probeMs = this.#prober.probeMs;
    const { minRate, probeStep: firstStep, probeDoublingMs: doublingMs } = this.#s;
    if (probeMs === undefined) return Math.max(minRate, ceiling * (1 - margin));
    const accepted = this.#meter.accepted(this.#now) ?? 0;
    return probingRate({ ceiling, firstStep, doublingMs }, probeMs, accepted, minRate);
  }
}
