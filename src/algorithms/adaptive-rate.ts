import type { RateLimitQuota } from '../headers/quota.js';
import {
  type AdaptiveRateOptions,
  type AdaptiveRateSettings,
  adaptiveRateSettings,
} from './adaptive-rate-options.js';
import { rateSnapshot, restoreRate } from './adaptive-rate-snapshot.js';
import type { AdaptiveRateState } from './adaptive-rate-state.js';
import { cutOnRefusal, reguessFromBurst } from './ceiling-cut.js';
import type { ClockReading } from './clock-reading.js';
import { closurePriceMs, type LongClosure, rateAfterLongClosure } from './closure-span.js';
import { speedOf } from './congestion.js';
import { FreeProbeAftermath, namesNoPause } from './free-probe.js';
import { learnedRate, learnedRateIdle } from './learned-rate.js';
import { QuotaPace } from './quota-pace.js';
import { RateParts } from './rate-parts.js';
import { billedPauseMs, RefusalPause } from './refusal-pause.js';
import { type AlarmAction, isRefusal, type RatePolicy, type Sample } from './sample.js';

const NO_OPTIONS: AdaptiveRateOptions = Object.freeze({});

/**
 * The sending rate of one scope, learned from outcomes: it finds the highest
 * rate the server accepts and paces just below it, without being told.
 *
 * - Unpaced at first (unless `startRate`): the concurrency limit governs.
 * - On throttling, once per congestion event, it learns the ceiling: the rate
 *   the server granted before refusing (see {@link RateMeter.ceilingAt};
 *   recounted by send time once the outcomes it needs are in; a penalty met
 *   again after the same count, what was granted over both spells and the
 *   block between, see `PenaltySpells`), and holds a `margin` below it. The
 *   margin widens when the held rate is refused and narrows when a probe finds
 *   the same ceiling again.
 * - It probes above the ceiling when the {@link Prober}'s budget can pay for it:
 *   the refusals and pauses recent probes cost, earned at `refusedShare` of
 *   the requests and `pausedShare` of the time. A probe starts `probeStep`
 *   above the ceiling and doubles its excess every `probeDoublingMs` until
 *   refused, so an unchanged capacity costs a refusal or two and a capacity
 *   that rose is followed within seconds; a refusal that names no pause ends
 *   it unpaused, unless its aftermath asks for one ({@link FreeProbeAftermath}).
 *   A cut that left only a lower bound (a grant read over a constant
 *   `Retry-After` longer than the server's window, short of a penalty) is
 *   probed from as soon as the pause and hold are over, unpaid. Its clock
 *   stops while the server accepts less than 60 % of what is offered (a rate
 *   nobody uses is not probing).
 * - The server's word wins: `documentedRate` always caps; a published quota
 *   caps at limit/window and spreads `remaining` over the time to the reset;
 *   a spent quota pauses until the reset; `Retry-After` pauses (at least
 *   `minPauseMs`). Quota information expires when its window resets.
 */
export class AdaptiveRate implements RatePolicy {
  readonly #s: AdaptiveRateSettings;
  /**
   * The decisions, meter and prober, created with the first sample (or alarm,
   * snapshot, restore): until then the rate is unpaced, as fresh ones say.
   */
  #parts: RateParts | undefined;
  /** Created with the first sample that is no success: most scopes are never refused. */
  #refusalPause: RefusalPause | undefined;
  /** Created with the first probe refused without a pause. */
  #freeProbe: FreeProbeAftermath | undefined;

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   */
  constructor(options: AdaptiveRateOptions = NO_OPTIONS) {
    this.#s = adaptiveRateSettings(options);
    if (this.#s.startRate === Infinity) return;
    const parts = this.#used();
    parts.decisions.ceiling = this.#s.startRate;
    parts.prober.setProbe(0);
  }

  /** Current rate in requests/s; `Infinity` means unpaced. Never NaN, never above `documentedRate`. */
  get rate(): number {
    return Math.min(learnedRate(this.#parts), this.#s.documentedRate, this.#quotaCap());
  }

  /** Monotonic ms before which nothing may be sent (a server-requested pause); 0 when none. */
  get pausedUntil(): number {
    return this.#parts?.meter.pausedUntil ?? 0;
  }

  /** The learned ceiling in requests/s (the server's capacity as last measured), if any. */
  get ceiling(): number | undefined {
    const ceiling = this.#parts?.decisions.ceiling ?? 0;
    return ceiling > 0 ? ceiling : undefined;
  }

  /** Whether the rate is probing above the ceiling right now. */
  get probing(): boolean {
    return this.#parts?.prober.probeMs !== undefined;
  }

  /** Updates the rate and pause from one sample, its Retry-After and its quota. */
  onSample(sample: Sample): void {
    const { at, signal } = sample;
    if (!Number.isFinite(at) || !Number.isFinite(sample.sentAt)) return;
    const parts = this.#used();
    const { meter, prober } = parts;
    const activeMs = meter.advance(sample, this.rate);
    if (prober.probeMs !== undefined && !learnedRateIdle(parts, at)) {
      // One sample moves the probe at most one window: after a silence it resumes, not leaps.
      prober.advance(Math.min(activeMs, meter.windowMs));
    }
    parts.now = Math.max(parts.now, at);
    const speed = speedOf(sample);
    prober.onRequest();
    const refused = isRefusal(sample) && !sample.overConcurrency;
    const probeRefused = refused && prober.probeMs !== undefined;
    const verdict = refused ? meter.pauses.judgeRefusal(sample, this.rate) : undefined;
    const closed = verdict !== undefined || (refused && meter.pauses.refusedInTail(sample));
    const probesAftermath =
      refused && !closed && !probeRefused && this.#freeProbe?.claims(sample) === true;
    const answered = refused && meter.pauses.answeredByPause(sample);
    // A refusal for its concurrency is the concurrency limit's to learn from;
    // one while a published quota paced the sends, the quota's (it pauses to
    // the reset) — unless it carries the quota and the quota was refused in an
    // earlier window too (see `QuotaPace.refusedAgain`); one as sending
    // resumed after a pause, the pause's (it was too short); one soon after a
    // probe refused unpaused, the probe's; one sent before a pause that
    // answered a refusal of the rate and back after it, that pause's
    // congestion event (see `LatestPause.answeredByPause`).
    if (closed || probesAftermath || answered) prober.onRefusal();
    else if (
      (speed === 'cut' || speed === 'cut-hard') &&
      !sample.overConcurrency &&
      !this.#quotaOwns(sample)
    )
      this.#cut(sample, speed);
    else if (speed === 'grow' || speed === 'hold') {
      // A success refutes a cap trial or a noisy closure (LatestPause.refutedBy): a rate refusal.
      const trial = sample.capTrial === 'refuted' ? meter.refutedTrial : undefined;
      if (trial !== undefined) this.#cut(trial, 'cut');
      const refuted = meter.pauses.refutedBy(sample);
      if (refuted !== undefined) this.#cut(refuted, 'cut');
      const closure = meter.pauses.reopened(sample.sentAt);
      if (closure !== undefined) this.#afterLongClosure(closure);
      meter.accept(sample);
      parts.recountsIfAny?.accepted(sample.sentAt);
      this.#applyRecount(at, sample.outstanding === 0);
    }
    // A guess read from the opening burst's first refusal heard, once the burst is all answered.
    reguessFromBurst(parts.decisions, at, parts);
    if (speed !== 'grow' && verdict !== 'closure-late') {
      this.#refusalPause ??= new RefusalPause();
      const pace = { minPauseMs: this.#s.minPauseMs, rate: this.rate, granted: meter };
      const free = probeRefused && !closed && namesNoPause(sample);
      if (free) {
        this.#freeProbe ??= new FreeProbeAftermath();
        this.#freeProbe.open(at, meter.windowMs, this.rate);
      }
      const pauseMs = free ? 0 : this.#refusalPause.forSample(sample, closed, meter.pauses, pace);
      const chosen = (sample.signal.retryAfterMs ?? 0) <= 0;
      if (pauseMs > 0) this.#pause(at, pauseMs, !closed, verdict === 'closed', chosen);
      if (pauseMs > 0 && refused) meter.pauses.answered(at);
    }
    if (signal.quota !== undefined) this.#applyQuota(signal.quota, sample);
    else parts.quota?.onOutcome(sample);
    prober.onTime(at);
    if (prober.probeMs === undefined) this.#maybeProbe(at);
  }

  /**
   * A soft-throttling alarm (latency inflating with no error): `slow-down`
   * cuts to a quarter of what the server is serving (later cuts of the same
   * alarm: half) and holds there; `futile` restores what was learned before
   * the alarm (slowing down did not help); `cleared` puts back a little under
   * what was served when the alarm fired (a queue's drain rate; see
   * `ClearedRestore`), or keeps the lower rate as the ceiling to probe up from.
   */
  onAlarm(at: number, action: AlarmAction): void {
    const { meter, prober, alarm, decisions } = this.#used();
    const served = Math.min(learnedRate(this.#parts), meter.accepted(at) ?? Infinity);
    if (!alarm.apply(action, at, decisions, served, this.#s.minRate)) return;
    prober.setProbe(undefined);
    prober.openBudget(at);
  }

  /** Plain state for a store, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): AdaptiveRateState {
    const parts = this.#used();
    return rateSnapshot(parts.decisions, parts, clocks);
  }

  /**
   * Resumes a fresh policy from a {@link AdaptiveRate.snapshot} taken in this
   * process or another (`clocks` pairs this one's clocks now). Each field is
   * validated (an `InvalidOptionError` names a malformed one); missing fields
   * keep their fresh value.
   */
  restore(saved: Readonly<Record<string, unknown>>, clocks: ClockReading): void {
    const parts = this.#used();
    restoreRate(saved, parts.decisions, parts, clocks);
  }

  /** The decisions and parts, created at the first need. */
  #used(): RateParts {
    this.#parts ??= new RateParts(this.#s);
    return this.#parts;
  }

  /** Starts a probe once the hold is over, no pause is pending and the budget can pay for it. */
  #maybeProbe(at: number): void {
    const { prober, decisions, meter } = this.#used();
    prober.maybeStart({
      at,
      ceiling: decisions.ceiling,
      holdUntil: decisions.holdUntil,
      pausedUntil: meter.pausedUntil,
      quotaBinds: () => this.#quotaBinds(),
    });
  }

  /**
   * Pauses `ms` from `at`; `billed`: the pause is part of the current congestion
   * event's cost (not a server still closed after it); `closure`: it waits out
   * a server found closed as sending resumed (one refusal in its tail is forgiven);
   * `chosen`: its refusal named no pause (see {@link billedPauseMs}).
   */
  #pause(at: number, ms: number, billed: boolean, closure = false, chosen = false): void {
    const { meter, prober, decisions } = this.#used();
    const before = Math.max(at, meter.pausedUntil);
    this.#freeProbe?.close();
    meter.pauses.record(at, ms, closure);
    if (billed) prober.onPause(billedPauseMs(Math.max(0, meter.pausedUntil - before), chosen));
    decisions.holdUntil = Math.max(decisions.holdUntil, meter.pausedUntil);
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    const parts = this.#used();
    const probeStartedAt = parts.now - (parts.prober.probeMs ?? 0);
    cutOnRefusal(parts.decisions, sample, speed, learnedRate(parts), probeStartedAt, parts);
  }

  /**
   * After a long closure (see `ClosureSpan`): the rate that tripped it comes down (see
   * {@link rateAfterLongClosure}; a pending recount, of the burst that tripped it, is dropped),
   * and no probe starts for as long again as the server stayed closed — a probe's refusal may
   * cost another closure as long. What the closure lost (see {@link closurePriceMs}; its pauses,
   * which found the server closed, billed nothing) is the congestion event's price: a probe that
   * tripped it pays for it, and the next waits until the budget has earned that much (an
   * expensive refusal permits rare probes).
   */
  #afterLongClosure(closure: LongClosure): void {
    const parts = this.#used();
    const { decisions, prober } = parts;
    decisions.holdUntil = Math.max(decisions.holdUntil, parts.now + closure.closedMs);
    prober.setProbe(undefined);
    const held = learnedRate(parts);
    if (held === Infinity) return;
    parts.recountsIfAny?.forget();
    const rate = Math.max(this.#s.minRate, rateAfterLongClosure(closure, held));
    prober.onPause(closurePriceMs(closure, rate));
    if (rate < held) decisions.ceiling = rate / (1 - decisions.margin);
  }

  /** Replaces the ceiling by its recount, once the outcomes it needs are in (`drained`: none in flight). */
  #applyRecount(at: number, drained: boolean): void {
    const parts = this.#used();
    const { meter, prober, decisions } = parts;
    const counted = parts.recountsIfAny?.due(at, meter, decisions.ceiling, prober, drained);
    if (counted === undefined) return;
    this.#freeProbe?.close(); // the rate held from here is a reading, no longer a guess
    parts.alarmIfAny?.forget();
    // A count that raises a guess says only "at least" (a slow start's sends): still a guess,
    // unless it was counted whole: charged as a probe's reading, it is one, and the probe the
    // budget then earns is a measured ceiling's, not a guess's steep check.
    if (!(counted > decisions.ceiling) || parts.recountsIfAny?.countedWhole) parts.guess = 'none';
    decisions.ceiling = counted;
  }

  #applyQuota(quota: RateLimitQuota, sample: Sample): void {
    const parts = this.#used();
    parts.quota ??= new QuotaPace();
    const pauseUntil = parts.quota.onQuota(quota, sample);
    if (pauseUntil > sample.at) parts.meter.pauses.record(sample.at, pauseUntil - sample.at);
  }

  /**
   * Whether a refusal is the published quota's alone: it set the pace, and the refusal either
   * says nothing of the quota (a bare 5xx taken for a refusal) or is its first in a window
   * (see `QuotaPace.refusedAgain`).
   */
  #quotaOwns(refusal: Sample): boolean {
    if (!this.#quotaBinds()) return false;
    return (
      refusal.signal.quota === undefined || this.#parts?.quota?.refusedAgain(refusal.at) !== true
    );
  }

  /** Whether a published quota, not the learned ceiling, sets the pace now. */
  #quotaBinds(): boolean {
    return this.#parts?.quota !== undefined && this.#quotaCap() <= learnedRate(this.#parts);
  }

  #quotaCap(): number {
    const parts = this.#parts;
    return parts?.quota?.cap(parts.now) ?? Infinity;
  }
}
