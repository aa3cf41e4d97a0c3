import { custom, hasMethods, number } from '../../option-rules.js';
import type { OptionsOf } from '../../option-spec.js';
import { type Random, seededRandom, uniform } from '../../random.js';

/**
 * The rules of the latency options every model that serves requests has,
 * `latencyMs` defaulting to `defaultLatencyMs`; {@link latencyOf} turns their
 * settings into a {@link Latency}.
 */
export function latencySpec(defaultLatencyMs: number) {
  return {
    /** Base service latency (time to first byte) of a served request, ms. Default: per model. */
    latencyMs: number(defaultLatencyMs, { min: 0 }),
    /**
     * Seeded jitter: each served request gets an extra uniform `[0, jitterMs)` ms.
     * @default 0
     */
    jitterMs: number(0, { min: 0 }),
    /**
     * Source of the jitter (and of any other chance in the model).
     * @default seededRandom(0)
     */
    random: RANDOM,
  };
}

/** Latency options shared by every model that serves requests. */
export interface LatencyOptions extends OptionsOf<ReturnType<typeof latencySpec>> {}

const isRandom = hasMethods<Random>('next');
const RANDOM = custom((value, fail): Random => {
  if (value === undefined) return seededRandom(0);
  return isRandom(value) ? value : fail('a Random (an object with next())');
});

/** Validated latency options. */
export interface Latency {
  /** The configured base latency, ms (without jitter). */
  readonly baseMs: number;
  /** Draws the latency of one served request: `latencyMs + uniform(0, jitterMs)`. */
  sample(): number;
}

/** The latency the checked settings describe: `latencyMs + uniform(0, jitterMs)` per request. */
export function latencyOf(settings: {
  latencyMs: number;
  jitterMs: number;
  random: Random;
}): Latency {
  const { latencyMs: baseMs, jitterMs, random } = settings;
  return {
    baseMs,
    sample: () => (jitterMs === 0 ? baseMs : baseMs + uniform(random, 0, jitterMs)),
  };
}
