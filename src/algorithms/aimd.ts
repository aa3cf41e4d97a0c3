import { numberOption, rejectUnknownOptions, sharedSettings } from '../options.js';
import { clamp, NEVER, speedOf, startsNewEvent } from './congestion.js';
import type { ConcurrencyLimit, Sample } from './sample.js';

/** Options of {@link AimdLimit}. */
export interface AimdOptions {
  /**
   * Limit to start from. A browser opens up to six connections per host, so four
   * in flight is within what any site sees from one visitor; slow start then
   * doubles the limit each round trip, so starting low costs only a few round trips.
   * @default 4
   */
  initialLimit?: number;
  /** Smallest limit (an integer >= 1). @default 1 */
  min?: number;
  /** Largest limit, a politeness and socket budget. @default 32 */
  max?: number;
  /**
   * Factor applied to the limit on a `cut` (429, reset, timeout), once per
   * congestion event. 0.7 is CUBIC's β (RFC 9438): because we decrease only
   * once per event, a gentle cut suffices and keeps utilisation high (a sawtooth
   * between 0.7 and 1 averages 85 % against Reno's 75 % for 0.5).
   * @default 0.7
   */
  backoffRatio?: number;
  /** Factor applied on a `cut-hard` (503 and friends: an origin in trouble). @default 0.5 */
  overloadRatio?: number;
  /**
   * Milliseconds after a `cut-hard` during which successes do not raise the
   * limit: a success from a struggling origin is no proof of headroom.
   * @default 5000
   */
  overloadHoldMs?: number;
  /**
   * Slow start: while the limit is below this threshold each success adds 1, so
   * a fully used window doubles every round trip, as TCP does to reach the knee
   * quickly. Every decrease lowers the threshold to the decreased limit, so slow
   * start ends at the first cut. `0` disables slow start.
   * @default Infinity (until the first decrease or `max`)
   */
  slowStartThreshold?: number;
}

/** Serialisable state of an {@link AimdLimit}; numbers only. */
export type AimdState = {
  /** The real-valued limit (the exposed limit is its floor). */
  value: number;
  /** Slow start continues while `value` is below this. */
  slowStartThreshold: number;
  /** `at` of the last decrease ({@link NEVER} if none). */
  lastDecreaseAt: number;
  /** Increases are held until this time (after an overload). */
  holdUntil: number;
};

const OWNER = 'AimdLimit';
const KNOWN = [
  'initialLimit',
  'min',
  'max',
  'backoffRatio',
  'overloadRatio',
  'overloadHoldMs',
  'slowStartThreshold',
];

/**
 * Additive-increase / multiplicative-decrease concurrency limit, done the way
 * TCP does it rather than per response:
 *
 * - grows by about one per round trip (`1 / limit` per success), and only while
 *   the limit is used (`inflight * 2 >= limit`); with slow start, by one per
 *   success until the first decrease;
 * - decreases by `backoffRatio` once per congestion event: a rejected request
 *   sent before the last decrease does not decrease again, so a burst of 429s
 *   is one event, not a collapse to `min`;
 * - on overload (`cut-hard`) decreases by `overloadRatio` and holds increases
 *   for `overloadHoldMs`.
 */
export class AimdLimit implements ConcurrencyLimit {
  readonly #s: AimdSettings;
  #value: number;
  #slowStartThreshold: number;
  #lastDecreaseAt = NEVER;
  #holdUntil = NEVER;

  /**
   * @param options validated (unknown keys are rejected) once per options
   *   object: reuse one object for many scopes; it is not read again.
   * @param state state from {@link AimdLimit.toJSON} (e.g. loaded from a store);
   *   each field is validated, missing fields keep their fresh value.
   */
  constructor(options: AimdOptions = NO_OPTIONS, state?: Readonly<Record<string, unknown>>) {
    this.#s = aimdSettings(options);
    this.#value = this.#s.initialLimit;
    this.#slowStartThreshold = this.#s.slowStartThreshold;
    if (state !== undefined) this.#restore(state);
  }

  /** The current limit: `max(min, floor(value))`. */
  get limit(): number {
    return Math.max(this.#s.min, Math.floor(this.#value));
  }

  /** Updates the limit from one sample and returns the new limit. */
  onSample(sample: Sample): number {
    const speed = speedOf(sample);
    if (speed === 'grow') this.#grow(sample);
    else if (speed === 'cut') this.#decrease(sample, this.#s.backoffRatio);
    else if (speed === 'cut-hard') this.#overload(sample);
    return this.limit;
  }

  /** Plain state, for a shared store or a restart. */
  toJSON(): AimdState {
    return {
      value: this.#value,
      slowStartThreshold: this.#slowStartThreshold,
      lastDecreaseAt: this.#lastDecreaseAt,
      holdUntil: this.#holdUntil,
    };
  }

  #grow(sample: Sample): void {
    if (sample.at < this.#holdUntil) return;
    if (sample.inflight * 2 < this.#value) return; // app-limited: no evidence of headroom
    const step = this.#value < this.#slowStartThreshold ? 1 : 1 / this.#value;
    this.#value = Math.min(this.#s.max, this.#value + step);
  }

  #overload(sample: Sample): void {
    this.#holdUntil = Math.max(this.#holdUntil, sample.at + this.#s.overloadHoldMs);
    this.#decrease(sample, this.#s.overloadRatio);
  }

  #decrease(sample: Sample, ratio: number): void {
    if (!startsNewEvent(sample, this.#lastDecreaseAt)) return;
    this.#lastDecreaseAt = sample.at;
    this.#value = Math.max(this.#s.min, this.#value * ratio);
    this.#slowStartThreshold = this.#value;
  }

  #restore(state: Readonly<Record<string, unknown>>): void {
    const owner = `${OWNER} state`;
    const value = numberOption(owner, 'value', state.value, this.#value, {});
    this.#value = clamp(value, this.#s.min, this.#s.max);
    this.#slowStartThreshold = numberOption(
      owner,
      'slowStartThreshold',
      state.slowStartThreshold,
      this.#slowStartThreshold,
      { min: 0 },
    );
    this.#lastDecreaseAt = numberOption(owner, 'lastDecreaseAt', state.lastDecreaseAt, NEVER);
    this.#holdUntil = numberOption(owner, 'holdUntil', state.holdUntil, NEVER);
  }
}

/** Validated {@link AimdOptions}: the initial limit within [min, max], the threshold at most max. */
type AimdSettings = Readonly<Required<AimdOptions>>;

const NO_OPTIONS: AimdOptions = Object.freeze({});
/** Validated once per options object: one scope per host must stay cheap. */
const aimdSettings = sharedSettings((options: AimdOptions): AimdSettings => {
  rejectUnknownOptions(OWNER, options, KNOWN);
  const min = numberOption(OWNER, 'min', options.min, 1, { min: 1, integer: true });
  const max = numberOption(OWNER, 'max', options.max, 32, { min, integer: true });
  const initial = numberOption(OWNER, 'initialLimit', options.initialLimit, 4, {
    min: 1,
    integer: true,
  });
  const threshold = numberOption(
    OWNER,
    'slowStartThreshold',
    options.slowStartThreshold,
    Infinity,
    { min: 0, infinite: true },
  );
  const settings: AimdSettings = Object.freeze({
    min,
    max,
    initialLimit: clamp(initial, min, max),
    backoffRatio: ratioOption('backoffRatio', options.backoffRatio, 0.7),
    overloadRatio: ratioOption('overloadRatio', options.overloadRatio, 0.5),
    overloadHoldMs: numberOption(OWNER, 'overloadHoldMs', options.overloadHoldMs, 5000, {
      min: 0,
    }),
    slowStartThreshold: Math.min(threshold, max),
  });
  return settings;
});

function ratioOption(name: string, value: unknown, fallback: number): number {
  return numberOption(OWNER, name, value, fallback, { min: 0.01, max: 1 });
}
