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
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER, speedOf, startsNewEvent } from './congestion.js';
import { readProbeBudget } from './probe-budget-state.js';
import { probeRate } from './probe-curve.js';
import { Prober } from './prober.js';
import { QuotaPace } from './quota-pace.js';
import { RateMeter } from './rate-meter.js';
import {
  FIRST_RECOUNT_SPAN_MS,
  firstCeilingRecount,
  grantRecount,
  probeRecount,
  type Recount,
  recountedCeiling,
} from './recount.js';
import type { AlarmAction, RatePolicy, Sample } from './sample.js';

/** A ceiling measured again within this fraction is the same ceiling. */
const SAME = 0.05;
/** The margin below the ceiling stays within these. */
const MARGIN = { min: 0.01, max: 0.25 } as const;
/** A refusal at the held rate widens the margin by this factor; a probe that confirms narrows it. */
const WIDEN = 1.5;
const NARROW = 0.8;
/** A probe's clock runs only while the server is accepting at least this share of what is sent. */
const IN_USE = 0.6;
/** A probe asks for at most this multiple of the larger of the ceiling and what is accepted. */
const PROBE_REACH = 2;
/** Idleness is judged only when a window should hold at least this many requests. */
const MIN_JUDGED = 8;
/**
 * The first cut of a latency alarm is a decisive experiment — a quarter of
 * what the server is serving — and later cuts of the same alarm halve.
 */
const FIRST_ALARM_RATIO = 0.25;
const ALARM_RATIO = 0.5;
/** A latency alarm's cut is held this long before probing: long enough for the guard to judge it. */
const ALARM_HOLD_MS = 10_000;
/** A refusal at the held rate lowers the ceiling to no less than this share of that rate. */
const HELD_CUT = 0.5;
/** Pauses for refusals that name none, ms: the first, the longest, and "right after a pause". */
const UNHINTED_PAUSE = { first: 1000, max: 32_000, soonMs: 2000 } as const;
/** A refused probe is judged by the sends of at least this span before it, ms. */
const MIN_PROBE_SPAN_MS = 1000;
/** Probes are not started by the budget alone: also no sooner than this many round trips after a cut. */
const HOLD_RTTS = 4;
const OWNER = 'AdaptiveRate state';
const NO_OPTIONS: AdaptiveRateOptions = Object.freeze({});

/** What a latency alarm's cuts replaced, to put back if they were futile. */
interface BeforeAlarm {
  ceiling: number;
  margin: number;
}

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
  /** A ceiling to recount by send time once the outcomes it needs are in. */
  #recount: Recount | undefined;
  /** Whether the first ceiling was counted (once). */
  #firstCounted = false;
  /** What the current latency alarm's cuts replaced; undefined outside one. */
  #beforeAlarm: BeforeAlarm | undefined;
  /** Created with the first published quota. */
  #quota: QuotaPace | undefined;
  /** Time of the latest sample. */
  #now = -Infinity;
  /** The pause the next refusal without a Retry-After brings, ms. */
  #unhintedMs: number = UNHINTED_PAUSE.first;

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
      if (this.#recount !== undefined && at >= this.#recount.at) this.#applyRecount();
    }
    const retryAfter = closed
      ? this.#longerPause(signal.retryAfterMs)
      : (signal.retryAfterMs ?? this.#unhintedPause(sample));
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
    if (action === 'cleared') {
      this.#beforeAlarm = undefined;
      return;
    }
    if (action === 'futile') {
      if (this.#beforeAlarm !== undefined) {
        this.#ceiling = this.#beforeAlarm.ceiling;
        this.#margin = this.#beforeAlarm.margin;
        this.#holdUntil = at;
      }
      this.#beforeAlarm = undefined;
      return;
    }
    const first = this.#beforeAlarm === undefined;
    const served = this.#meter.accepted(at) ?? Infinity;
    const base = Math.min(this.#learnedRate(), served);
    if (base === Infinity) return; // nothing measured yet to cut from
    if (first) this.#beforeAlarm = { ceiling: this.#ceiling, margin: this.#margin };
    this.#ceiling = Math.max(this.#s.minRate, base * (first ? FIRST_ALARM_RATIO : ALARM_RATIO));
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
    this.#firstCounted = state.ceiling > 0;
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

  /**
   * The pause a refusal that names none brings: a second (what most limits
   * count over), doubling while the server refuses again right after each
   * pause, up to {@link UNHINTED_PAUSE.max}. Without it, a limit that
   * remembers the last second's requests refuses every request sent in that
   * second, each a new congestion event — a collapse. None for a refusal of
   * concurrency (the concurrency limit handles that) or for anything else.
   */
  #unhintedPause(sample: Sample): number | undefined {
    if (!isRefusal(sample) || sample.overConcurrency) return undefined;
    const endedAt = this.#meter.pauseEnd;
    if (sample.sentAt < endedAt) return undefined; // sent before the last pause ended: same burst
    const soon = sample.sentAt - endedAt < UNHINTED_PAUSE.soonMs;
    this.#unhintedMs = soon
      ? Math.min(UNHINTED_PAUSE.max, this.#unhintedMs * 2)
      : UNHINTED_PAUSE.first;
    return this.#unhintedMs;
  }

  /**
   * The pause after a refusal as sending resumed: the last pause proved too
   * short, so twice as long (up to {@link UNHINTED_PAUSE.max}), or the
   * server's word if it asks for longer. A limit over a long window that
   * answers `Retry-After: 0` (or nothing) until the window ends is waited out
   * in a few doublings, with its learned rate intact.
   */
  #longerPause(hintMs: number | undefined): number {
    this.#unhintedMs = Math.min(
      UNHINTED_PAUSE.max,
      Math.max(UNHINTED_PAUSE.first, 2 * this.#meter.lastPauseMs),
    );
    return Math.max(hintMs ?? 0, this.#unhintedMs);
  }

  /** Pauses `ms` from `at`; `billed`: the pause is part of the current congestion event's cost (not a server still closed after it). */
  #pause(at: number, ms: number, billed: boolean): void {
    const before = Math.max(at, this.#meter.pausedUntil);
    this.#meter.pause(at, ms);
    if (billed) this.#prober.onPause(Math.max(0, this.#meter.pausedUntil - before));
    this.#holdUntil = Math.max(this.#holdUntil, this.#meter.pausedUntil);
  }

  /** Replaces the ceiling by its recount, once the outcomes it needs are in. */
  #applyRecount(): void {
    const recount = this.#recount as Recount;
    this.#recount = undefined;
    const count = this.#meter.acceptedSentIn(recount.from, recount.to);
    if (this.#ceiling === 0 || count === undefined) return;
    // A first ceiling counted over a whole span is as good as a probe's reading:
    // the next probe waits as if one had just been paid for.
    if (recount.raiseOnly && count.fromMs <= recount.from) {
      this.#prober.chargeFirstCount(recount.pauseMs ?? this.#meter.lastPauseMs);
    }
    const counted = recountedCeiling(recount, count, this.#ceiling);
    if (counted === undefined) return;
    this.#beforeAlarm = undefined;
    this.#ceiling = counted;
  }

  /**
   * What to recount after a cut: the first ceiling (once), or soon after a
   * pause, when the refusal asked for another, what the server granted between
   * the two. Undefined when there is nothing to recount.
   */
  #recountAfter(sample: Sample, current: number, calm: boolean): Recount | undefined {
    if (current === Infinity) {
      if (this.#firstCounted) return undefined;
      this.#firstCounted = true;
      const asked = sample.signal.retryAfterMs ?? (isRefusal(sample) ? UNHINTED_PAUSE.first : 0);
      return {
        ...firstCeilingRecount(
          sample,
          this.#meter.pausedWithin(sample.sentAt - FIRST_RECOUNT_SPAN_MS, sample.sentAt),
        ),
        pauseMs: Math.max(this.#s.minPauseMs, asked),
      };
    }
    const paused = !calm && sample.signal.retryAfterMs !== undefined;
    const window = paused ? this.#meter.grantWindow(sample) : undefined;
    return window === undefined ? undefined : grantRecount(sample, window, current);
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    this.#prober.onRefusal();
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    const { at } = sample;
    this.#beforeAlarm = undefined; // a refusal outranks a latency alarm: never undo this cut
    this.#lastDecreaseAt = at;
    const current = this.#learnedRate();
    const measured = this.#meter.ceilingAt(sample, current);
    const floor = Math.max(this.#s.minRate, this.#floor(sample, current, measured !== undefined));
    const confirmed = this.#adaptMargin(measured?.ceiling);
    const probing = this.#prober.probeMs !== undefined;
    // A probe that found the ceiling where it was keeps it (the reading is no
    // better than the one it confirms, and the held rate was refusal-free).
    let ceiling = confirmed && probing ? this.#ceiling : Math.max(floor, measured?.ceiling ?? 0);
    if (measured !== undefined && !(confirmed && probing)) {
      const recount =
        probing && measured.calm
          ? probeRecount(sample, this.#probeSpan(sample), floor, current)
          : this.#recountAfter(sample, current, measured.calm);
      if (recount !== undefined) this.#recount = { ...recount, min: Math.max(recount.min, floor) };
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

  /**
   * The lowest ceiling one event may leave: a probe refused says only that the
   * capacity is below the probe, not below the rate held without refusal
   * before it; a
   * refusal at the held rate lowers it by at most {@link HELD_CUT} (a reading
   * taken across a pause or at a slow pace can be far too low, and the next
   * probe may be a long way off); refused before anything was measured (a
   * burst limit met at once), as many per second as were in flight — a guess
   * the first probes soon correct.
   */
  #floor(sample: Sample, current: number, measured: boolean): number {
    if (current === Infinity) return measured ? 0 : sample.inflight;
    if (this.#prober.probeMs !== undefined) return this.#ceiling * (1 - this.#margin);
    return current * HELD_CUT;
  }

  /**
   * A probe that finds the same ceiling again narrows the margin; a refusal at
   * the held rate with the ceiling where it was widens it (the hold was too
   * close); a ceiling that moved says nothing about the margin. Returns
   * whether the ceiling was found where it was.
   */
  #adaptMargin(measured: number | undefined): boolean {
    const previous = this.#ceiling;
    if (previous === 0 || measured === undefined) return false;
    if (Math.abs(measured - previous) > SAME * previous) return false;
    const factor = this.#prober.probeMs === undefined ? WIDEN : NARROW;
    this.#margin = Math.min(MARGIN.max, Math.max(MARGIN.min, this.#margin * factor));
    return true;
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

/** Whether a sample is the server refusing (as opposed to a timeout or a reset). */
function isRefusal(sample: Sample): boolean {
  const { kind } = sample.signal;
  return kind === 'throttled' || kind === 'overloaded';
}
