import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { numberOption } from '../options.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { clamp, NEVER, speedOf, startsNewEvent } from './congestion.js';
import { CUT_RATIO, LIMIT_RANGE_SPEC } from './limit-range.js';
import type { ConcurrencyLimit, Sample } from './sample.js';

/** Options of {@link GradientLimit}. */
export interface GradientOptions {
  /** Limit to start from; slow start is not used here, growth is √limit per round trip. @default 4 */
  initialLimit?: number;
  /** Smallest limit (an integer >= 1). @default 1 */
  min?: number;
  /** Largest limit. @default 32 */
  max?: number;
  /**
   * How much the short-term round-trip time may exceed the no-load one before
   * the limit shrinks: gradient = clamp(tolerance × noLoadRtt / shortRtt, 0.5, 1).
   * 1.5 (Netflix Gradient2's default) ignores jitter of ±20 % and shrinks the limit
   * in proportion once round trips pass 1.5 × the no-load time.
   * @default 1.5
   */
  tolerance?: number;
  /** Weight of each new round trip in the short-term RTT average (EMA). @default 0.1 */
  rttSmoothing?: number;
  /**
   * Half-life of the no-load RTT's drift toward the current RTT, in ms. The
   * no-load RTT is the minimum seen, slowly forgotten so that a server that
   * became permanently slower is re-baselined instead of throttled forever.
   * @default 60000
   */
  baselineHalfLifeMs?: number;
  /** Factor applied on a `cut` (429, reset, timeout), once per congestion event. @default 0.7 */
  backoffRatio?: number;
  /** Factor applied on a `cut-hard` (503 and friends), once per congestion event. @default 0.5 */
  overloadRatio?: number;
}

/** Serialisable state of a {@link GradientLimit}; numbers only (0 = not measured yet), times as wall-clock epoch ms. */
export type GradientState = {
  /** The real-valued limit (the exposed limit is its floor). */
  value: number;
  /** The no-load round-trip time, ms. */
  noLoadRtt: number;
  /** The short-term round-trip time (EMA), ms. */
  shortRtt: number;
  /** `at` of the last RTT measurement ({@link NEVER} if none). */
  lastAt: number;
  /** `at` of the last decrease ({@link NEVER} if none). */
  lastDecreaseAt: number;
};

const OWNER = 'GradientLimit';
const readOptions = defineOptions<GradientOptions>()(OWNER, {
  ...LIMIT_RANGE_SPEC,
  tolerance: number(1.5, { min: 1 }),
  rttSmoothing: number(0.1, { min: 0.001, max: 1 }),
  baselineHalfLifeMs: number(60_000, { min: 1, infinite: true }),
  backoffRatio: number(0.7, CUT_RATIO),
  overloadRatio: number(0.5, CUT_RATIO),
});
/** The gradient never cuts deeper than this per round trip. */
const MIN_GRADIENT = 0.5;

/**
 * A latency-gradient concurrency limit (Vegas / Netflix Gradient2 family) for
 * soft throttling that never answers 429: when round trips inflate against the
 * no-load round trip, the server is queueing us, and the limit shrinks.
 *
 * Per successful sample, with gradient = clamp(tolerance × noLoadRtt / shortRtt, 0.5, 1),
 * the target is `limit × gradient + √limit` (√limit is the queue we allow), and
 * the limit moves `1 / limit` of the way there — one full step per round trip,
 * not per response. It grows only while the limit is used (`inflight * 2 >=
 * limit`). Throttling signals cut it like AIMD, once per congestion event.
 */
export class GradientLimit implements ConcurrencyLimit {
  readonly #min: number;
  readonly #max: number;
  readonly #tolerance: number;
  readonly #smoothing: number;
  readonly #halfLifeMs: number;
  readonly #backoffRatio: number;
  readonly #overloadRatio: number;
  #value: number;
  #noLoadRtt = 0;
  #shortRtt = 0;
  #lastAt = NEVER;
  #lastDecreaseAt = NEVER;

  /**
   * @param options validated; unknown keys are rejected.
   */
  constructor(options: GradientOptions = {}) {
    const settings = readOptions(options);
    this.#min = settings.min;
    this.#max = settings.max;
    this.#tolerance = settings.tolerance;
    this.#smoothing = settings.rttSmoothing;
    this.#halfLifeMs = settings.baselineHalfLifeMs;
    this.#backoffRatio = settings.backoffRatio;
    this.#overloadRatio = settings.overloadRatio;
    this.#value = clamp(settings.initialLimit, this.#min, this.#max);
  }

  /** The current limit: `max(min, floor(value))`. */
  get limit(): number {
    return Math.max(this.#min, Math.floor(this.#value));
  }

  /** The current no-load round-trip time in ms (0 before the first success). */
  get noLoadRtt(): number {
    return this.#noLoadRtt;
  }

  /** Updates the limit from one sample and returns the new limit. */
  onSample(sample: Sample): number {
    const speed = speedOf(sample);
    if (speed === 'grow') this.#measure(sample);
    else if (speed === 'cut') this.#decrease(sample, this.#backoffRatio);
    else if (speed === 'cut-hard') this.#decrease(sample, this.#overloadRatio);
    return this.limit;
  }

  /** Plain state for a store, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
  snapshot(clocks: ClockReading): GradientState {
    return {
      value: this.#value,
      noLoadRtt: this.#noLoadRtt,
      shortRtt: this.#shortRtt,
      lastAt: toWall(this.#lastAt, clocks),
      lastDecreaseAt: toWall(this.#lastDecreaseAt, clocks),
    };
  }

  #measure(sample: Sample): void {
    const rtt = sample.at - sample.sentAt;
    if (!(rtt > 0 && Number.isFinite(rtt))) return; // a zero or broken RTT says nothing
    this.#updateRtts(rtt, sample.at);
    const gradient = clamp((this.#tolerance * this.#noLoadRtt) / this.#shortRtt, MIN_GRADIENT, 1);
    const target = this.#value * gradient + Math.sqrt(this.#value);
    const appLimited = sample.inflight * 2 < this.#value;
    if (appLimited && target > this.#value) return;
    const next = this.#value + (target - this.#value) / this.#value;
    this.#value = clamp(next, this.#min, this.#max);
  }

  #updateRtts(rtt: number, at: number): void {
    if (this.#shortRtt === 0) {
      this.#shortRtt = rtt;
      this.#noLoadRtt = rtt;
    } else {
      this.#shortRtt += (rtt - this.#shortRtt) * this.#smoothing;
      const elapsed = Math.max(0, at - this.#lastAt);
      const forget = 1 - 2 ** (-elapsed / this.#halfLifeMs);
      this.#noLoadRtt = Math.min(rtt, this.#noLoadRtt);
      this.#noLoadRtt += (this.#shortRtt - this.#noLoadRtt) * forget;
    }
    this.#lastAt = at;
  }

  #decrease(sample: Sample, ratio: number): void {
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    this.#lastDecreaseAt = sample.at;
    this.#value = Math.max(this.#min, this.#value * ratio);
  }

  /**
   * Resumes a fresh limit from a {@link GradientLimit.snapshot} taken in this
   * process or another (`clocks` pairs this one's clocks now); each field is validated.
   */
  restore(state: Readonly<Record<string, unknown>>, clocks: ClockReading): void {
    const owner = `${OWNER} state`;
    const value = numberOption(owner, 'value', state.value, this.#value);
    this.#value = clamp(value, this.#min, this.#max);
    this.#noLoadRtt = numberOption(owner, 'noLoadRtt', state.noLoadRtt, 0, { min: 0 });
    this.#shortRtt = numberOption(owner, 'shortRtt', state.shortRtt, 0, { min: 0 });
    if ((this.#noLoadRtt === 0) !== (this.#shortRtt === 0)) {
      this.#noLoadRtt = 0; // half a measurement is none
      this.#shortRtt = 0;
    }
    const time = (name: 'lastAt' | 'lastDecreaseAt') =>
      fromWall(numberOption(owner, name, state[name], NEVER), clocks);
    this.#lastAt = time('lastAt');
    this.#lastDecreaseAt = time('lastDecreaseAt');
  }
}
