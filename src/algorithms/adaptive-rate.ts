import type { RateLimitQuota } from '../headers/quota.js';
import {
  type AdaptiveRateOptions,
  type AdaptiveRateSettings,
  adaptiveRateSettings,
} from './adaptive-rate-options.js';
import {
  type AdaptiveRateState,
  type RateDecisionState,
  readRateDecisions,
  readRateMeter,
} from './adaptive-rate-state.js';
import { NEVER, speedOf, startsNewEvent } from './congestion.js';
import { type ProbeCurve, probeRate } from './probe-curve.js';
import { type QuotaPace, quotaPace } from './quota-pace.js';
import { DEEPEST_CUT, RateMeter } from './rate-meter.js';
import { firstCeilingRecount, grantRecount, type Recount, recountedCeiling } from './recount.js';
import type { AlarmAction, RatePolicy, Sample } from './sample.js';

/** A calm measurement within this fraction of the ceiling (at a rate as near it) confirms it. */
const CONFIRM = 0.05;
/** Each confirmation doubles the plateau, the time between probes. */
const PLATEAU_GROWTH = 2;
/** Past the plateau, the rate stops climbing while less than this share of it is accepted. */
const IN_USE = 0.8;
/** Idleness is judged only when a window should hold at least this many requests. */
const MIN_JUDGED = 8;
/** A ceiling below this share of the recent peak is a fallen one, probed at the shortest interval. */
const FALLEN = 0.75;
/** Accepted this far above the learned ceiling, the ceiling is stale and follows. */
const HEADROOM = 1.1;
/** After the ceiling follows the accepted rate, probing resumes at this multiple of it. */
const CLIMB_GAIN = 1.5;
/**
 * The first cut of a latency alarm is a decisive experiment — a quarter of
 * what the server is serving, so a target that delays us for exceeding a
 * per-client rate shows it at once — and later cuts halve (reference 003's 50 %).
 */
const FIRST_ALARM_RATIO = 0.25;
const ALARM_RATIO = 0.5;
/**
 * A latency alarm's cut is held this long before probing up again: long enough
 * for the latency guard to judge it, and shorter than a throttling plateau —
 * soft throttling is not a window that costs a pause per probe.
 */
const ALARM_PLATEAU_MS = 10_000;
/** Half-life of the peak's memory, ms: a capacity that fell for good stops being watched. */
const PEAK_HALF_LIFE_MS = 300_000;
const OWNER = 'AdaptiveRate state';
const NO_OPTIONS: AdaptiveRateOptions = Object.freeze({});

/** What the rate has learned from throttling (or was given as `startRate`); absent before. */
interface Learned {
  /** The learned ceiling, requests/s; 0 while only a start rate is known. */
  ceiling: number;
  /** The way back to the ceiling and past it. */
  curve: ProbeCurve;
  /** Time spent on the curve, ms (negative during an overload hold). */
  elapsedMs: number;
  /** The highest confirmed ceiling, and when it was confirmed. */
  peak: number;
  peakAt: number;
}

/**
 * The sending rate of one scope, learned from outcomes: it finds the highest
 * rate the server accepts and paces just below it, without being told.
 *
 * - Unpaced at first (unless `startRate`): the concurrency limit governs.
 * - On throttling, once per congestion event, it learns a ceiling: after a
 *   calm spell, the rate that was really sent (the pacer's average, if the
 *   server accepted it) — or what was accepted; soon after a server pause, what
 *   the server granted between the pause and the new refusal (see
 *   {@link RateMeter.ceilingAt}). Both the first ceiling and a grant are
 *   recounted by send time once the outcomes they need are in. The rate
 *   drops to `ceiling × backoffRatio` (× `backoffRatio` again while the
 *   ceiling is unconfirmed)
 *   and climbs back along a {@link ProbeCurve}: flat near the ceiling, then
 *   probing above it. A probe that finds the same ceiling (within 5 %)
 *   confirms it and doubles the plateau, up to `maxProbeIntervalMs`, so
 *   probes are rare at steady state; a ceiling that moved is probed again
 *   after `minProbeIntervalMs`, and so is one that fell below 75 % of the
 *   highest confirmed ceiling of the last minutes (a capacity that fell may
 *   come back; that memory halves every 5 minutes). Throttling that persists
 *   is a new event: cut again.
 * - The curve's clock stops during server pauses, and past the plateau while
 *   less than 80 % of the rate is accepted (a rate nobody uses is not probing).
 * - The server's word wins: `documentedRate` always caps; a published quota
 *   caps at limit/window and spreads `remaining` over the time to the reset;
 *   a spent quota pauses until the reset; `Retry-After` pauses (at least
 *   `minPauseMs`). Quota information expires when its window resets.
 */
export class AdaptiveRate implements RatePolicy {
  readonly #s: AdaptiveRateSettings;
  readonly #meter: RateMeter;
  #lastDecreaseAt = NEVER;
  // Absent until needed: most of a crawl's scopes are never throttled.
  #learned: Learned | undefined;
  /** A ceiling to recount by send time once the outcomes it needs are in. */
  #recount: Recount | undefined;
  /** Whether the first ceiling was counted (it is, once: later unpaced spells follow an alarm). */
  #firstCounted = false;
  /** What was learned before the current latency alarm's cuts (null: unpaced); undefined outside one. */
  #beforeAlarm: Learned | null | undefined;
  #quota: QuotaPace | undefined;

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   * @param state state from {@link AdaptiveRate.toJSON} (e.g. from a shared
   *   store); each field is validated, missing fields keep their fresh value.
   */
  constructor(
    options: AdaptiveRateOptions = NO_OPTIONS,
    state?: Readonly<Record<string, unknown>>,
  ) {
    this.#s = adaptiveRateSettings(options);
    this.#meter = new RateMeter(this.#s.windowMs);
    const { startRate } = this.#s;
    if (startRate !== Infinity) this.#learn(0, this.#newCurve(startRate, startRate, 0), 0);
    if (state !== undefined) this.#restore(state);
  }

  /** Current rate in requests/s; `Infinity` means unpaced. Never NaN, never above `documentedRate`. */
  get rate(): number {
    return Math.min(this.#learnedRate(), this.#s.documentedRate, this.#quota?.cap ?? Infinity);
  }

  /** Monotonic ms before which nothing may be sent (a server-requested pause); 0 when none. */
  get pausedUntil(): number {
    return this.#meter.pausedUntil;
  }

  /** The learned ceiling in requests/s (the server's capacity as last measured), if any. */
  get ceiling(): number | undefined {
    const ceiling = this.#learned?.ceiling ?? 0;
    return ceiling > 0 ? ceiling : undefined;
  }

  /** Updates the rate and pause from one sample, its Retry-After and its quota. */
  onSample(sample: Sample): void {
    const { at, signal } = sample;
    if (!Number.isFinite(at) || !Number.isFinite(sample.sentAt)) return;
    const activeMs = this.#meter.advance(sample, this.rate);
    const learned = this.#learned;
    // One sample moves the curve at most one window: after a silence (an open
    // breaker, an idle crawl) the probe resumes where it was instead of leaping.
    if (learned !== undefined && !this.#idle(learned, at)) {
      learned.elapsedMs += Math.min(activeMs, this.#s.windowMs);
    }
    if (this.#quota !== undefined && at >= this.#quota.expiresAt) this.#quota = undefined;
    const speed = speedOf(sample);
    if (speed === 'grow' || speed === 'hold') {
      this.#meter.accept(sample);
      if (this.#recount !== undefined && at >= this.#recount.at) this.#applyRecount();
      if (learned !== undefined) this.#followHeadroom(learned, at);
    } else this.#cut(sample, speed);
    const retryAfter = signal.retryAfterMs;
    if (speed !== 'grow' && retryAfter !== undefined && Number.isFinite(retryAfter)) {
      this.#meter.pause(at, Math.max(this.#s.minPauseMs, retryAfter));
    }
    if (signal.quota !== undefined) this.#applyQuota(signal.quota, at);
  }

  /**
   * A soft-throttling alarm (latency inflating with no error): `slow-down` cuts
   * to {@link FIRST_ALARM_RATIO} of what the server is serving (later cuts of the
   * same alarm: {@link ALARM_RATIO}) and holds there for {@link ALARM_PLATEAU_MS}; `futile` restores what was learned before the
   * alarm (slowing down did not help); `cleared` keeps the lower rate as the
   * ceiling to probe up from.
   */
  onAlarm(at: number, action: AlarmAction): void {
    if (action === 'cleared') {
      this.#beforeAlarm = undefined;
      return;
    }
    if (action === 'futile') {
      if (this.#beforeAlarm !== undefined) this.#learned = this.#beforeAlarm ?? undefined;
      this.#beforeAlarm = undefined;
      return;
    }
    const first = this.#beforeAlarm === undefined;
    const served = this.#meter.accepted(at) ?? Infinity;
    const base = Math.min(this.#learnedRate(), served);
    if (base === Infinity) return; // nothing measured yet to cut from
    if (first) this.#beforeAlarm = copyLearned(this.#learned);
    const target = Math.max(this.#s.minRate, base * (first ? FIRST_ALARM_RATIO : ALARM_RATIO));
    this.#learn(target, this.#newCurve(target, target, ALARM_PLATEAU_MS), 0);
  }

  /** Plain state, for a shared store or a restart. */
  toJSON(): AdaptiveRateState {
    return { ...this.#decisions(), ...this.#meter.toJSON() };
  }

  #decisions(): RateDecisionState {
    const learned = this.#learned;
    return {
      ceiling: learned?.ceiling ?? 0,
      curveCeiling: learned?.curve.ceiling ?? 0,
      curveStart: learned?.curve.start ?? 0,
      plateauMs: learned?.curve.plateauMs ?? 0,
      elapsedMs: learned?.elapsedMs ?? 0,
      peak: learned?.peak ?? 0,
      peakAt: learned?.peakAt ?? NEVER,
      lastDecreaseAt: this.#lastDecreaseAt,
      quotaCap: this.#quota === undefined || this.#quota.cap === Infinity ? 0 : this.#quota.cap,
      quotaExpiresAt: this.#quota?.expiresAt ?? NEVER,
    };
  }

  #restore(saved: Readonly<Record<string, unknown>>): void {
    const state = readRateDecisions(saved, this.#decisions(), OWNER);
    this.#meter.restore(readRateMeter(saved, this.#meter.toJSON(), OWNER));
    this.#lastDecreaseAt = state.lastDecreaseAt;
    this.#learned = undefined;
    this.#firstCounted = state.ceiling > 0;
    if (state.curveCeiling > 0) {
      const curve = this.#newCurve(state.curveCeiling, state.curveStart, state.plateauMs);
      const learned = this.#learn(state.ceiling, curve, state.elapsedMs);
      learned.peak = state.peak;
      learned.peakAt = state.peakAt;
    }
    this.#quota =
      state.quotaCap > 0
        ? { cap: state.quotaCap, pauseUntil: 0, expiresAt: state.quotaExpiresAt }
        : undefined;
  }

  /** Past the plateau, whether the rate is far above what is accepted (so not being tested). */
  #idle(learned: Learned, at: number): boolean {
    if (learned.elapsedMs < learned.curve.plateauMs) return false;
    const rate = this.#learnedRate();
    // Too few requests per window to tell a quiet scope from a slow one: assume in use.
    if ((rate * this.#s.windowMs) / 1000 < MIN_JUDGED) return false;
    const accepted = this.#meter.accepted(at);
    return accepted !== undefined && accepted < IN_USE * rate;
  }

  /**
   * Past the plateau, a server seen to accept clearly more than the learned
   * ceiling has more capacity than we knew: the ceiling follows what it
   * accepts, and the probe restarts from {@link CLIMB_GAIN} times that, so a
   * capacity increase is found in a few windows instead of along the slow
   * start of the convex curve.
   */
  #followHeadroom(learned: Learned, at: number): void {
    if (learned.ceiling === 0 || learned.elapsedMs <= learned.curve.plateauMs) return;
    const accepted = this.#meter.accepted(at);
    if (accepted === undefined || accepted < HEADROOM * learned.ceiling) return;
    learned.ceiling = accepted;
    learned.curve = this.#newCurve(accepted, accepted, 0);
    learned.elapsedMs = this.#s.probeDoublingMs * Math.cbrt(CLIMB_GAIN - 1);
  }

  /** Replaces the ceiling by its recount, once the outcomes it needs are in (the curve keeps its shape). */
  #applyRecount(): void {
    const recount = this.#recount as Recount;
    this.#recount = undefined;
    const count = this.#meter.acceptedSentIn(recount.from, recount.to);
    const learned = this.#learned;
    if (learned === undefined || count === undefined) return;
    const counted = recountedCeiling(recount, count, learned.ceiling);
    if (counted === undefined) return;
    this.#beforeAlarm = undefined;
    const scale = counted / learned.ceiling;
    learned.ceiling = counted;
    learned.curve = { ...learned.curve, ceiling: counted, start: learned.curve.start * scale };
  }

  /**
   * What to recount after a cut: the first ceiling (once), or soon after a
   * pause, when the refusal asked for another, what the server granted between
   * the two. Undefined when there is nothing to recount: a recount still
   * pending then stays due.
   */
  #recountAfter(sample: Sample, current: number, calm: boolean): Recount | undefined {
    if (current === Infinity) {
      if (this.#firstCounted) return undefined;
      this.#firstCounted = true;
      return firstCeilingRecount(sample);
    }
    // Only a refusal that asked for a pause reads like a window or a log.
    const paused = !calm && sample.signal.retryAfterMs !== undefined;
    const window = paused ? this.#meter.grantWindow(sample) : undefined;
    return window === undefined ? undefined : grantRecount(sample, window, current);
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    this.#beforeAlarm = undefined; // a refusal outranks a latency alarm: never undo this cut
    this.#lastDecreaseAt = sample.at;
    const current = this.#learnedRate();
    const measured = this.#meter.ceilingAt(sample, current);
    if (measured === undefined) return; // unpaced and nothing measured yet: nothing to learn from
    this.#recount = this.#recountAfter(sample, current, measured.calm) ?? this.#recount;
    // One event lowers the ceiling by at most half: when nothing completes (every
    // request timing out), "accepted" reads near zero, which is no measurement.
    const floor = current === Infinity ? this.#s.minRate : current * DEEPEST_CUT;
    const ceiling = Math.max(this.#s.minRate, floor, measured.ceiling);
    const previous = this.#learned?.ceiling ?? 0;
    const confirmed = measured.calm && near(ceiling, previous) && near(current, previous);
    const peak = this.#recentPeak(sample.at);
    const fallen = ceiling < FALLEN * peak;
    const plateauMs =
      confirmed && !fallen
        ? Math.min(
            this.#s.maxProbeIntervalMs,
            (this.#learned?.curve.plateauMs ?? 0) * PLATEAU_GROWTH,
          )
        : this.#shortestPlateau(sample);
    let ratio = speed === 'cut-hard' ? this.#s.overloadRatio : this.#s.backoffRatio;
    if (!confirmed) ratio *= this.#s.backoffRatio; // a new ceiling gets a wider margin
    const start = Math.max(this.#s.minRate, ceiling * ratio);
    const hold = speed === 'cut-hard' ? -this.#s.overloadHoldMs : 0;
    const learned = this.#learn(ceiling, this.#newCurve(ceiling, start, plateauMs), hold);
    if (confirmed && ceiling >= peak) {
      learned.peak = ceiling;
      learned.peakAt = sample.at;
    }
  }

  /**
   * The plateau after a cut that did not confirm the ceiling: `minProbeIntervalMs`
   * when the server asked for a pause (each failed probe will cost another), and
   * no more than {@link ALARM_PLATEAU_MS} when it did not (a timeout, a bare 503).
   */
  #shortestPlateau(sample: Sample): number {
    const { minProbeIntervalMs } = this.#s;
    return sample.signal.retryAfterMs === undefined
      ? Math.min(minProbeIntervalMs, ALARM_PLATEAU_MS)
      : minProbeIntervalMs;
  }

  /** Sets what was learned, keeping the peak. */
  #learn(ceiling: number, curve: ProbeCurve, elapsedMs: number): Learned {
    const learned = this.#learned;
    if (learned === undefined) {
      this.#learned = { ceiling, curve, elapsedMs, peak: 0, peakAt: NEVER };
      return this.#learned;
    }
    learned.ceiling = ceiling;
    learned.curve = curve;
    learned.elapsedMs = elapsedMs;
    return learned;
  }

  /** The highest confirmed ceiling, fading with a half-life of {@link PEAK_HALF_LIFE_MS}. */
  #recentPeak(at: number): number {
    const learned = this.#learned;
    if (learned === undefined || learned.peakAt === NEVER) return 0;
    return learned.peak * 2 ** (-Math.max(0, at - learned.peakAt) / PEAK_HALF_LIFE_MS);
  }

  #applyQuota(quota: RateLimitQuota, at: number): void {
    const pace = quotaPace(quota, at, this.#s.quotaMargin);
    if (pace === undefined) return;
    this.#quota = pace;
    if (pace.pauseUntil > at) this.#meter.pause(at, pace.pauseUntil - at);
  }

  #newCurve(ceiling: number, start: number, plateauMs: number): ProbeCurve {
    return { ceiling, start, plateauMs, doublingMs: this.#s.probeDoublingMs };
  }

  /** The learned rate (before caps); `Infinity` while unpaced. */
  #learnedRate(): number {
    const learned = this.#learned;
    if (learned === undefined) return Infinity;
    return Math.max(this.#s.minRate, probeRate(learned.curve, learned.elapsedMs));
  }
}

/** A copy of what was learned (null when nothing was: unpaced). */
function copyLearned(learned: Learned | undefined): Learned | null {
  return learned === undefined ? null : { ...learned, curve: { ...learned.curve } };
}

/** Whether `value` is within {@link CONFIRM} of a known `ceiling`. */
function near(value: number, ceiling: number): boolean {
  return ceiling > 0 && Math.abs(value - ceiling) <= CONFIRM * ceiling;
}
