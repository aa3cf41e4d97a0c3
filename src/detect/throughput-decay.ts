import { choice, custom, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import { DecayingSum, fadedLength } from './ema.js';
import { isDuration, isPlausible, safeRatio } from './numbers.js';
import type { AlarmTransition } from './transition.js';

/** What {@link ThroughputDecayDetector} watches. */
export type ThroughputNormalisation = 'per-inflight' | 'none';

const readOptions = defineOptions('ThroughputDecayDetector', {
  /**
   * `per-inflight`: watch completions per second *per request in flight*
   * (needs `sentAt` on every completion), so throughput that falls only
   * because we sent less — a rate cut, a smaller concurrency limit, a batch
   * draining — is not mistaken for throttling. `none`: watch raw completions
   * per second, as a plain request log would; only meaningful at a constant
   * offered load.
   * @default 'per-inflight'
   */
  normalise: choice('per-inflight', ['per-inflight', 'none']),
  /** Memory of the moving averages, ms: a sample `τ` old weighs 1/e of a fresh one. @default 30000 */
  timeConstantMs: number(30_000, { min: 1 }),
  /** Alarm when the watched rate has fallen this fraction below its peak. @default 0.35 */
  decayFraction: number(0.35, { min: 0.01, max: 0.99 }),
  /**
   * Clear the alarm once the watched rate is back above this fraction of the
   * peak; the peak is then re-based to the current rate. Must exceed
   * `1 − decayFraction`, so the alarm cannot flap on one threshold.
   * @default 0.85
   */
  recoverFraction: custom((value = 0.85, fail, earlier) => {
    const decay = earlier.decayFraction as number;
    if (typeof value !== 'number' || !(value > 1 - decay && value <= 1)) {
      fail(`a number > 1 − decayFraction (${1 - decay}) and <= 1`);
    }
    return value as number;
  }),
  /**
   * Completions the average must hold — its exponentially weighted count,
   * about rate × τ once settled — before its value may set the peak or count
   * as recovered. This replaces a fixed minimum rate: with the defaults the
   * detector judges from ~1.7 req/s; for slower clients raise `timeConstantMs`.
   * @default 50
   */
  minSamples: number(50, { min: 1, integer: true }),
  /** Time since the first completion before anything is judged, ms (warm-up). @default 2 × timeConstantMs */
  minElapsedMs: number((earlier) => 2 * (earlier.timeConstantMs as number), { min: 0 }),
});

/** Options for {@link ThroughputDecayDetector}. */
export interface ThroughputDecayOptions extends OptionsOf<typeof readOptions> {}

/** One finished request. */
export interface Completion {
  /** When it finished, monotonic ms. */
  at: number;
  /** When it was sent, monotonic ms. Required in `per-inflight` mode (completions without it are ignored). */
  sentAt?: number;
}

/** The detector's latest estimates, plain and serialisable. */
export interface ThroughputDecayState {
  /** Completions per second (exponentially weighted, start-up bias removed). */
  throughputRps: number;
  /** Completions per second per request in flight (`per-inflight` mode; 0 otherwise). */
  perInflightRps: number;
  /** The peak of the watched rate since warm-up or since the last recovery. */
  peak: number;
  /** How far the watched rate is below its peak, 0–1. */
  drop: number;
  /** Whether warm-up is over (`minElapsedMs` passed and the average once held `minSamples`). */
  warm: boolean;
  /** Whether the alarm is raised. */
  alarmed: boolean;
  /** Completions counted. */
  samples: number;
}

/**
 * Soft-throttling detector: an exponentially weighted rate with peak
 * tracking; it raises an alarm when the rate has sunk `decayFraction` below
 * its peak and clears it when the rate recovers to `recoverFraction` of it.
 *
 * How it measures (and how it differs from a count over a lookback):
 * - Completions feed a time-based decaying sum S (memory τ), read as a rate
 *   `S / (τ·(1 − e^(−elapsed/τ)))`: the divisor is the weight the average has
 *   actually accumulated, so the estimate of a steady rate is right from the
 *   first seconds instead of rising from zero, so warm-up no longer looks
 *   like growth. Instead of an absolute "peak above 2 req/s" constant, a
 *   value may only set the peak when the average holds `minSamples`
 *   completions: the noise of a count of k is about 1/√(2k) of it, so this
 *   bounds the noise the peak can capture at any rate and any τ.
 * - Demand normalisation (`per-inflight`): each completion also adds its
 *   time in flight (from `max(sentAt, start)` to `at`, with the same fading
 *   weights) to a busy-time sum B. `S / B` is completions per second per
 *   request in flight — by Little's law the inverse of the weighted mean
 *   latency. Sending fewer requests lowers S and B together and leaves the
 *   ratio alone; the target holding each request longer lowers it. So the
 *   alarm reads "each request in flight now completes 35 % less often than at
 *   the best time" (mean latency ≥ 1/(1 − 0.35) ≈ 1.54× its best), whatever
 *   load we offered. We use time in flight rather than a sampled in-flight
 *   count because a count read at completion instants is biased by about one
 *   request (and the offered rate is no yardstick either: while a concurrency
 *   limit binds, raising the offered rate would look like decay).
 * - Warm-up needs `minElapsedMs` and a backed average; the peak starts
 *   being tracked only after it, so a start-up burst (a handful of
 *   responses in the first milliseconds) cannot become the peak. The first
 *   peak is the average at warm-up end, so a fall that began shortly before
 *   is only partly counted. While alarmed the peak is frozen.
 * - Requests still in flight are only known at completion; {@link tick} can
 *   pass the current in-flight count so a total stall shows up before the
 *   stuck requests finish.
 */
export class ThroughputDecayDetector {
  readonly #perInflight: boolean;
  readonly #tau: number;
  readonly #alarmBelow: number;
  readonly #recoverAbove: number;
  readonly #minSamples: number;
  readonly #minElapsedMs: number;
  readonly #completions: DecayingSum;
  readonly #busy: DecayingSum;
  #startedAt: number | undefined;
  #now = Number.NEGATIVE_INFINITY;
  #lastCompletionAt = Number.NEGATIVE_INFINITY;
  #state: ThroughputDecayState = {
    throughputRps: 0,
    perInflightRps: 0,
    peak: 0,
    drop: 0,
    warm: false,
    alarmed: false,
    samples: 0,
  };

  constructor(options: ThroughputDecayOptions = {}) {
    const settings = readOptions(options);
    this.#perInflight = settings.normalise === 'per-inflight';
    this.#tau = settings.timeConstantMs;
    this.#alarmBelow = 1 - settings.decayFraction;
    this.#recoverAbove = settings.recoverFraction;
    this.#minSamples = settings.minSamples;
    this.#minElapsedMs = settings.minElapsedMs;
    this.#completions = new DecayingSum(this.#tau);
    this.#busy = new DecayingSum(this.#tau);
  }

  /** The latest estimates (a copy). */
  get state(): ThroughputDecayState {
    return { ...this.#state };
  }

  /**
   * Feeds one finished request; returns `alarm` or `clear` when the alarm
   * changes. The first completion only starts the clock. Completions with a
   * non-finite time (or, in `per-inflight` mode, no usable `sentAt`) are ignored.
   */
  observe(completion: Completion): AlarmTransition | undefined {
    const { sentAt } = completion;
    if (!isPlausible(completion.at)) return undefined;
    if (this.#perInflight && !isPlausible(sentAt)) return undefined;
    const at = Math.max(completion.at, this.#now);
    this.#now = at;
    this.#lastCompletionAt = at;
    if (this.#startedAt === undefined) {
      this.#startedAt = at;
      return undefined;
    }
    this.#state.samples++;
    this.#completions.add(at, 1);
    if (this.#perInflight && sentAt !== undefined) {
      this.#busy.add(at, fadedLength(at - Math.max(sentAt, this.#startedAt), this.#tau));
    }
    return this.#evaluate(at, 0);
  }

  /**
   * Re-evaluates at time `at` without a completion, so a rate that collapses
   * (nothing finishes any more) is noticed. In `per-inflight` mode pass the
   * number of requests in flight: they are counted as busy since the last
   * completion.
   */
  tick(at: number, inflight = 0): AlarmTransition | undefined {
    if (this.#startedAt === undefined || !isPlausible(at)) return undefined;
    this.#now = Math.max(at, this.#now);
    const sinceCompletion = this.#now - this.#lastCompletionAt;
    const pending = isDuration(inflight) ? inflight * fadedLength(sinceCompletion, this.#tau) : 0;
    return this.#evaluate(this.#now, pending);
  }

  #evaluate(at: number, pendingBusy: number): AlarmTransition | undefined {
    const elapsed = at - (this.#startedAt as number);
    const completions = this.#completions.valueAt(at);
    const state = this.#state;
    state.throughputRps = safeRatio(1000 * completions, fadedLength(elapsed, this.#tau));
    const busy = this.#busy.valueAt(at) + pendingBusy;
    if (this.#perInflight) {
      if (!(busy > 0)) return undefined;
      state.perInflightRps = safeRatio(1000 * completions, busy);
    }
    const watched = this.#perInflight ? state.perInflightRps : state.throughputRps;
    const backed = completions >= this.#minSamples;
    state.warm ||= backed && elapsed >= this.#minElapsedMs;
    if (!state.warm) return undefined;
    return this.#judge(watched, backed);
  }

  /** `backed`: the average holds enough completions to set the peak or to count as recovered. */
  #judge(watched: number, backed: boolean): AlarmTransition | undefined {
    const state = this.#state;
    if (!state.alarmed && backed) state.peak = Math.max(state.peak, watched);
    state.drop = state.peak > 0 ? Math.max(0, 1 - watched / state.peak) : 0;
    if (!state.alarmed && watched < this.#alarmBelow * state.peak) {
      state.alarmed = true;
      return 'alarm';
    }
    if (state.alarmed && backed && watched >= this.#recoverAbove * state.peak) {
      state.alarmed = false;
      state.peak = watched;
      state.drop = 0;
      return 'clear';
    }
    return undefined;
  }
}
