import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { sharedSettings } from '../options.js';
import { clamp } from './congestion.js';
import { CUT_RATIO, LIMIT_RANGE_SPEC } from './limit-range.js';

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
   * Factor applied to the limit on a `cut` that is not a refusal (a reset, a
   * timeout), once per congestion event. 0.7 is CUBIC's β (RFC 9438): because
   * we decrease only once per event, a gentle cut suffices. A refusal (429)
   * cuts by what it shows instead: see {@link AimdLimit}.
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
   * quickly (about every second where pages take longer, while nothing but
   * successes came: see `SlowStartPace`). Every decrease lowers the threshold to the decreased limit, so slow
   * start ends at the first cut. `0` disables slow start.
   * @default Infinity (until the first decrease or `max`)
   */
  slowStartThreshold?: number;
  /**
   * Past a concurrency the server refused, the limit grows by this much per
   * success: finding the cap again then costs about this share of refusals
   * (the same budget the adaptive rate probes with).
   * @default 0.01
   */
  refusedShare?: number;
}

const readOptions = defineOptions<AimdOptions>()('AimdLimit', {
  ...LIMIT_RANGE_SPEC,
  backoffRatio: number(0.7, CUT_RATIO),
  overloadRatio: number(0.5, CUT_RATIO),
  overloadHoldMs: number(5000, { min: 0 }),
  slowStartThreshold: number(Infinity, { min: 0, infinite: true }),
  refusedShare: number(0.01, { min: 0, max: 1 }),
});

/** Validated {@link AimdOptions}: the initial limit within [min, max], the threshold at most max. */
export type AimdSettings = Readonly<Required<AimdOptions>>;

/** Validated once per options object: one scope per host must stay cheap. */
export const aimdSettings = sharedSettings((options: AimdOptions): AimdSettings => {
  const settings = readOptions(options);
  const { min, max } = settings;
  return Object.freeze({
    ...settings,
    initialLimit: clamp(settings.initialLimit, min, max),
    slowStartThreshold: Math.min(settings.slowStartThreshold, max),
  });
});
