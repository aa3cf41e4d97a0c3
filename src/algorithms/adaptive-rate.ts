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
import { quotaPace } from './quota-pace.js';
import { RateMeter } from './rate-meter.js';
import type { RatePolicy, Sample } from './sample.js';

/** A calm measurement within this fraction of the ceiling (at a rate as near it) confirms it. */
const CONFIRM = 0.05;
/** Each confirmation doubles the plateau, the time between probes. */
const PLATEAU_GROWTH = 2;
/** Past the plateau, the rate stops climbing while less than this share of it is accepted. */
const IN_USE = 0.8;
/** A ceiling below this share of the recent peak is a fallen one, probed at the shortest interval. */
const FALLEN = 0.75;
/** Half-life of the peak's memory, ms: a capacity that fell for good stops being watched. */
const PEAK_HALF_LIFE_MS = 300_000;
const OWNER = 'AdaptiveRate state';

/**
 * The sending rate of one scope, learned from outcomes: it finds the highest
 * rate the server accepts and paces just below it, without being told.
 *
 * - Unpaced at first (unless `startRate`): the concurrency limit governs.
 * - On throttling, once per congestion event, it learns a ceiling: after a
 *   calm spell, the rate that was really sent (the pacer's average, if the
 *   server accepted it) — or what was accepted; soon after a server pause, what
 *   the server granted between the pause and the new refusal (see
 *   {@link RateMeter.ceilingAt}). The rate drops to `ceiling ×
 *   backoffRatio` (× `backoffRatio` again while the ceiling is unconfirmed)
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
  #ceiling = 0;
  #curve: ProbeCurve | undefined;
  #elapsedMs = 0;
  #peak = 0;
  #peakAt = NEVER;
  #lastDecreaseAt = NEVER;
  #quotaCap = Infinity;
  #quotaExpiresAt = NEVER;
  #rate = Infinity;

  /**
   * @param options validated; unknown keys are rejected.
   * @param state state from {@link AdaptiveRate.toJSON} (e.g. from a shared
   *   store); each field is validated, missing fields keep their fresh value.
   */
  constructor(options: AdaptiveRateOptions = {}, state?: Readonly<Record<string, unknown>>) {
    this.#s = adaptiveRateSettings(options);
    this.#meter = new RateMeter(this.#s.windowMs);
    const { startRate } = this.#s;
    if (startRate !== Infinity) this.#curve = this.#newCurve(startRate, startRate, 0);
    if (state !== undefined) this.#restore(state);
    this.#rate = this.#compute();
  }

  /** Current rate in requests/s; `Infinity` means unpaced. Never NaN, never above `documentedRate`. */
  get rate(): number {
    return this.#rate;
  }

  /** Monotonic ms before which nothing may be sent (a server-requested pause); 0 when none. */
  get pausedUntil(): number {
    return this.#meter.pausedUntil;
  }

  /** The learned ceiling in requests/s (the server's capacity as last measured), if any. */
  get ceiling(): number | undefined {
    return this.#ceiling > 0 ? this.#ceiling : undefined;
  }

  /** Updates the rate and pause from one sample, its Retry-After and its quota. */
  onSample(sample: Sample): void {
    const { at, signal } = sample;
    if (!Number.isFinite(at) || !Number.isFinite(sample.sentAt)) return;
    const activeMs = this.#meter.advance(sample, this.#rate);
    if (this.#curve !== undefined && !this.#idle(at)) this.#elapsedMs += activeMs;
    if (at >= this.#quotaExpiresAt) this.#quotaCap = Infinity;
    const speed = speedOf(sample);
    if (speed === 'grow' || speed === 'hold') this.#meter.accept(sample);
    else this.#cut(sample, speed);
    const retryAfter = signal.retryAfterMs;
    if (speed !== 'grow' && retryAfter !== undefined && Number.isFinite(retryAfter)) {
      this.#meter.pause(at, Math.max(this.#s.minPauseMs, retryAfter));
    }
    if (signal.quota !== undefined) this.#applyQuota(signal.quota, at);
    this.#rate = this.#compute();
  }

  /** Plain state, for a shared store or a restart. */
  toJSON(): AdaptiveRateState {
    return { ...this.#decisions(), ...this.#meter.toJSON() };
  }

  #decisions(): RateDecisionState {
    return {
      ceiling: this.#ceiling,
      curveCeiling: this.#curve?.ceiling ?? 0,
      curveStart: this.#curve?.start ?? 0,
      plateauMs: this.#curve?.plateauMs ?? 0,
      elapsedMs: this.#elapsedMs,
      peak: this.#peak,
      peakAt: this.#peakAt,
      lastDecreaseAt: this.#lastDecreaseAt,
      quotaCap: this.#quotaCap === Infinity ? 0 : this.#quotaCap,
      quotaExpiresAt: this.#quotaExpiresAt,
    };
  }

  #restore(saved: Readonly<Record<string, unknown>>): void {
    const state = readRateDecisions(saved, this.#decisions(), OWNER);
    this.#meter.restore(readRateMeter(saved, this.#meter.toJSON(), OWNER));
    this.#ceiling = state.ceiling;
    this.#curve =
      state.curveCeiling > 0
        ? this.#newCurve(state.curveCeiling, state.curveStart, state.plateauMs)
        : undefined;
    this.#elapsedMs = state.elapsedMs;
    this.#peak = state.peak;
    this.#peakAt = state.peakAt;
    this.#lastDecreaseAt = state.lastDecreaseAt;
    this.#quotaCap = state.quotaCap > 0 ? state.quotaCap : Infinity;
    this.#quotaExpiresAt = state.quotaExpiresAt;
  }

  /** Past the plateau, whether the rate is far above what is accepted (so not being tested). */
  #idle(at: number): boolean {
    if (this.#curve === undefined || this.#elapsedMs < this.#curve.plateauMs) return false;
    const accepted = this.#meter.accepted(at);
    return accepted !== undefined && accepted < IN_USE * this.#learned();
  }

  #cut(sample: Sample, speed: 'cut' | 'cut-hard'): void {
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    this.#lastDecreaseAt = sample.at;
    const measured = this.#meter.ceilingAt(sample.at, this.#learned());
    if (measured === undefined) return; // unpaced and nothing measured yet: nothing to learn from
    const found = { ceiling: Math.max(this.#s.minRate, measured.ceiling), calm: measured.calm };
    const previous = this.#ceiling;
    const confirmed =
      found.calm && near(found.ceiling, previous) && near(this.#learned(), previous);
    const peak = this.#recentPeak(sample.at);
    if (confirmed && found.ceiling >= peak) {
      this.#peak = found.ceiling;
      this.#peakAt = sample.at;
    }
    const fallen = found.ceiling < FALLEN * peak;
    const plateauMs =
      confirmed && !fallen
        ? Math.min(this.#s.maxProbeIntervalMs, (this.#curve?.plateauMs ?? 0) * PLATEAU_GROWTH)
        : this.#s.minProbeIntervalMs;
    let ratio = speed === 'cut-hard' ? this.#s.overloadRatio : this.#s.backoffRatio;
    if (!confirmed) ratio *= this.#s.backoffRatio; // a new ceiling gets a wider margin
    this.#ceiling = found.ceiling;
    const start = Math.max(this.#s.minRate, found.ceiling * ratio);
    this.#curve = this.#newCurve(found.ceiling, start, plateauMs);
    this.#elapsedMs = speed === 'cut-hard' ? -this.#s.overloadHoldMs : 0;
  }

  /** The highest confirmed ceiling, fading with a half-life of {@link PEAK_HALF_LIFE_MS}. */
  #recentPeak(at: number): number {
    if (this.#peakAt === NEVER) return 0;
    return this.#peak * 2 ** (-Math.max(0, at - this.#peakAt) / PEAK_HALF_LIFE_MS);
  }

  #applyQuota(quota: RateLimitQuota, at: number): void {
    const pace = quotaPace(quota, at, this.#s.quotaMargin);
    if (pace === undefined) return;
    this.#quotaCap = pace.cap;
    this.#quotaExpiresAt = pace.expiresAt;
    if (pace.pauseUntil > at) this.#meter.pause(at, pace.pauseUntil - at);
  }

  #newCurve(ceiling: number, start: number, plateauMs: number): ProbeCurve {
    return { ceiling, start, plateauMs, doublingMs: this.#s.probeDoublingMs };
  }

  /** The learned rate (before caps); `Infinity` while unpaced. */
  #learned(): number {
    if (this.#curve === undefined) return Infinity;
    return Math.max(this.#s.minRate, probeRate(this.#curve, this.#elapsedMs));
  }

  #compute(): number {
    return Math.min(this.#learned(), this.#s.documentedRate, this.#quotaCap);
  }
}

/** Whether `value` is within {@link CONFIRM} of a known `ceiling`. */
function near(value: number, ceiling: number): boolean {
  return ceiling > 0 && Math.abs(value - ceiling) <= CONFIRM * ceiling;
}
