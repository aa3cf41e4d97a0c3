import type { RateLimitQuota } from '../headers/quota.js';
import {
  type AdaptiveRateOptions,
  type AdaptiveRateSettings,
  adaptiveRateSettings,
} from './adaptive-rate-options.js';
import {
  type AdaptiveRateState,
  type RateDecisionState,
  readQuotaPace,
  readRateDecisions,
  readRateMeter,
} from './adaptive-rate-state.js';
import { ALARM_HOLD_MS, AlarmCuts } from './alarm-cuts.js';
import { adaptedMargin, lowestCeiling } from './ceiling-cut.js';
import { CeilingRecounts } from './ceiling-recounts.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER, speedOf, startsNewEvent } from './congestion.js';
import { readProbeBudget } from './probe-budget-state.js';
import { probeRate } from './probe-curve.js';
import { Prober } from './prober.js';
import { QuotaPace } from './quota-pace.js';
import { RateMeter } from './rate-meter.js';
import { RefusalPause } from './refusal-pause.js';
import { type AlarmAction, isRefusal, type RatePolicy, type Sample } from './sample.js';

/** A probe's clock runs only while the server is accepting at least this share of what is sent. */
const IN_USE = 0.6;
/** A probe asks for at most this multiple of the larger of the ceiling and what is accepted. */
const PROBE_REACH = 2;
/** Idleness is judged only when a window should hold at least this many requests. */
const MIN_JUDGED = 8;
/** A refused probe is judged by the sends of at least this span before it, ms. */
const MIN_PROBE_SPAN_MS = 1000;
/** Probes are not started by the budget alone: also no sooner than this many round trips after a cut. */
const HOLD_RTTS = 4;
const OWNER = 'AdaptiveRate state';
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
  #lastDecreaseAt = NEVER;
  #ceiling = 0;
  #margin: number;
  #holdUntil = NEVER;
  readonly #recounts = new CeilingRecounts();
  readonly #alarm = new AlarmCuts();
  /** Created with the first published quota. */
  #quota: QuotaPace | undefined;
  /** Time of the latest sample. */
  #now = -Infinity;
  readonly #refusalPause = new RefusalPause();

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   */
  constructor(options: AdaptiveRateOptions = NO_OPTIONS) {
    this.#s = adaptiveRateSettings(options);
    this.#meter = new RateMeter(this.#s.windowMs);
    this.#margin = this.#s.margin;
    this.#prober = new Prober(this.#s.refusedShare, this.#s.pausedShare);
    if (this.#s.startRate !== Infinity) {
      this.#ceiling = this.#s.startRate;
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
    return this.#ceiling > 0 ? this.#ceiling : undefined;
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
    const retryAfter = closed
      ? this.#refusalPause.longer(signal.retryAfterMs, this.#meter)
      : (signal.retryAfterMs ?? this.#refusalPause.unhinted(sample, this.#meter));
    if (speed !== 'grow' && retryAfter !== undefined && Number.isFinite(retryAfter)) {
      this.#pause(at, Math.max(this.#s.minPauseMs, retryAfter), !closed);
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
    const learned = { ceiling: this.#ceiling, margin: this.#margin };
    const next = this.#alarm.next(action, learned, served, this.#s.minRate);
    if (next === undefined) return;
    this.#ceiling = next.ceiling;
    this.#margin = next.margin;
    if (action === 'futile') {
      this.#holdUntil = at;
      return;
    }
    this.#prober.setProbe(undefined);
    this.#holdUntil = at + ALARM_HOLD_MS;
    this.#prober.openBudget(at);
  }

  /** Plain state for a store, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): AdaptiveRateState {
    const state: AdaptiveRateState = {
      ...this.#decisions(clocks),
      ...this.#meter.snapshot(clocks),
    };
    const budget = this.#prober.budgetState(clocks);
    if (budget !== undefined) state.budget = budget;
    if (this.#quota !== undefined) state.quota = this.#quota.snapshot(clocks);
    return state;
  }

  #decisions(clocks: ClockReading): RateDecisionState {
    return {
      ceiling: this.#ceiling,
      margin: this.#margin,
      probeMs: this.#prober.probeMs ?? -1,
      holdUntil: toWall(this.#holdUntil, clocks),
      lastDecreaseAt: toWall(this.#lastDecreaseAt, clocks),
    };
  }

  /**
   * Resumes a fresh policy from a {@link AdaptiveRate.snapshot} taken in this
   * process or another (`clocks` pairs this one's clocks now). Each field is
   * validated (an `InvalidOptionError` names a malformed one); missing fields
   * keep their fresh value.
   */
  restore(saved: Readonly<Record<string, unknown>>, clocks: ClockReading): void {
    const state = readRateDecisions(saved, this.#decisions(clocks), OWNER);
    this.#meter.restore(readRateMeter(saved, this.#meter.snapshot(clocks), OWNER), clocks);
    const budget = readProbeBudget(saved, OWNER);
    this.#ceiling = state.ceiling;
    this.#margin = state.margin;
    this.#prober.setProbe(state.probeMs < 0 || state.ceiling === 0 ? undefined : state.probeMs);
    this.#holdUntil = fromWall(state.holdUntil, clocks);
    this.#lastDecreaseAt = fromWall(state.lastDecreaseAt, clocks);
    this.#recounts.firstCounted = state.ceiling > 0;
    const quota = readQuotaPace(saved, OWNER);
    if (quota !== undefined) {
      this.#quota = new QuotaPace();
      this.#quota.restore(quota, clocks);
    }
    if (budget !== undefined) this.#prober.restoreBudget(budget, clocks);
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
      ceiling: this.#ceiling,
      holdUntil: this.#holdUntil,
      pausedUntil: this.#meter.pausedUntil,
      quotaBinds: () => this.#quotaBinds(),
    });
  }

  /** Pauses `ms` from `at`; `billed`: the pause is part of the current congestion event's cost (not a server still closed after it). */
  #pause(at: number, ms: number, billed: boolean): void {
    const before = Math.max(at, this.#meter.pausedUntil);
    this.#meter.pause(at, ms);
    if (billed) this.#prober.onPause(Math.max(0, this.#meter.pausedUntil - before));
    this.#holdUntil = Math.max(this.#holdUntil, this.#meter.pausedUntil);
  }

  /** Replaces the ceiling by its recount, once the outcomes it needs are in. */
  #applyRecount(at: number): void {
    const counted = this.#recounts.due(at, this.#meter, this.#ceiling, (pauseMs) =>
      this.#prober.chargeFirstCount(pauseMs),
    );
    if (counted === undefined) return;
    this.#alarm.forget();
    this.#ceiling = counted;
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    this.#prober.onRefusal();
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    const { at } = sample;
    this.#alarm.forget(); // a refusal outranks a latency alarm: never undo this cut
    this.#lastDecreaseAt = at;
    const current = this.#learnedRate();
    const measured = this.#meter.ceilingAt(sample, current);
    const probing = this.#prober.probeMs !== undefined;
    const learned = { ceiling: this.#ceiling, margin: this.#margin };
    const lowest = lowestCeiling(sample, current, measured !== undefined, learned, probing);
    const floor = Math.max(this.#s.minRate, lowest);
    const { margin, confirmed } = adaptedMargin(learned, measured?.ceiling, probing);
    this.#margin = margin;
    // A probe that found the ceiling where it was keeps it (the reading is no
    // better than the one it confirms, and the held rate was refusal-free).
    let ceiling = confirmed && probing ? this.#ceiling : Math.max(floor, measured?.ceiling ?? 0);
    if (measured !== undefined && !(confirmed && probing)) {
      const probeSpanMs = probing ? this.#probeSpan(sample) : undefined;
      const cut = { current, calm: measured.calm, floor, probeSpanMs };
      this.#recounts.plan(sample, cut, this.#meter, this.#s.minPauseMs);
    }
    if (speed === 'cut-hard') ceiling *= this.#s.overloadRatio;
    const cut = {
      at,
      current,
      heldBeforeProbe: this.#ceiling * (1 - this.#margin),
      confirmed,
      refusal: isRefusal(sample),
      windowMs: this.#meter.windowMs,
    };
    this.#prober.onCut(cut, this.#ceiling);
    this.#ceiling = ceiling;
    const rttMs = at - sample.sentAt;
    const holdMs = speed === 'cut-hard' ? this.#s.overloadHoldMs : this.#s.minHoldMs;
    this.#holdUntil = Math.max(this.#holdUntil, at + Math.max(holdMs, HOLD_RTTS * rttMs));
    // A first ceiling read from nothing (refused before anything was measured)
    // is a guess: the budget starts with a probe's worth to check it soon.
    this.#prober.openBudget(at, measured === undefined ? 1 : 0);
  }

  /**
   * The sends a refused probe is judged by: those since it started (before,
   * the rate was lower and would dilute the count), at least
   * {@link MIN_PROBE_SPAN_MS} and at most the meter's window.
   */
  #probeSpan(sample: Sample): number {
    const since = sample.sentAt - (this.#now - (this.#prober.probeMs ?? 0));
    return Math.min(this.#meter.windowMs, Math.max(MIN_PROBE_SPAN_MS, since));
  }

  #applyQuota(quota: RateLimitQuota, sample: Sample): void {
    this.#quota ??= new QuotaPace();
    const pauseUntil = this.#quota.onQuota(quota, sample);
    if (pauseUntil > sample.at) this.#meter.pause(sample.at, pauseUntil - sample.at);
  }

  /** Whether a published quota, not the learned ceiling, sets the pace now. */
  #quotaBinds(): boolean {
    return this.#quota !== undefined && this.#quotaCap() <= this.#learnedRate();
  }

  #quotaCap(): number {
    return this.#quota?.cap(this.#now) ?? Infinity;
  }

  /** The learned rate (before caps); `Infinity` while unpaced. */
  #learnedRate(): number {
    if (this.#ceiling === 0) return Infinity;
    const probeMs = this.#prober.probeMs;
    if (probeMs === undefined) {
      return Math.max(this.#s.minRate, this.#ceiling * (1 - this.#margin));
    }
    const curve = {
      ceiling: this.#ceiling,
      firstStep: this.#s.probeStep,
      doublingMs: this.#s.probeDoublingMs,
    };
    // A probe never runs further ahead of what is accepted than twice: errors
    // that are not refusals (a server failing everything) stop it there.
    const reach = PROBE_REACH * Math.max(this.#ceiling, this.#meter.accepted(this.#now) ?? 0);
    return Math.max(this.#s.minRate, Math.min(probeRate(curve, probeMs), reach));
  }
}
