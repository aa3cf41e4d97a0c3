import { InvalidOptionError } from '../../errors.js';
import { numberOption } from '../../options.js';
import { type Random, seededRandom, uniform } from '../../random.js';

/** Latency options shared by every model that serves requests. */
export interface LatencyOptions {
  /** Base service latency (time to first byte) of a served request, ms. Default: per model. */
  latencyMs?: number;
  /**
   * Seeded jitter: each served request gets an extra uniform `[0, jitterMs)` ms.
   * @default 0
   */
  jitterMs?: number;
  /**
   * Source of the jitter (and of any other chance in the model).
   * @default seededRandom(0)
   */
  random?: Random;
}

/** Option names of {@link LatencyOptions}, for `rejectUnknownOptions`. */
export const LATENCY_OPTION_NAMES = ['latencyMs', 'jitterMs', 'random'] as const;

/** Validated latency options. */
export interface Latency {
  /** The configured base latency, ms (without jitter). */
  readonly baseMs: number;
  /** Draws the latency of one served request: `latencyMs + uniform(0, jitterMs)`. */
  sample(): number;
}

/** Validates {@link LatencyOptions}, applying `defaultLatencyMs` when `latencyMs` is absent. */
export function readLatency(
  owner: string,
  options: LatencyOptions,
  defaultLatencyMs: number,
): Latency {
  const baseMs = numberOption(owner, 'latencyMs', options.latencyMs, defaultLatencyMs, { min: 0 });
  const jitterMs = numberOption(owner, 'jitterMs', options.jitterMs, 0, { min: 0 });
  const random = randomOption(owner, options.random);
  return {
    baseMs,
    sample: () => (jitterMs === 0 ? baseMs : baseMs + uniform(random, 0, jitterMs)),
  };
}

/** Reads a `random` option: an object with a `next()` method. */
export function randomOption(owner: string, value: unknown): Random {
  if (value === undefined) return seededRandom(0);
  if (typeof value === 'object' && value !== null && typeof (value as Random).next === 'function') {
    return value as Random;
  }
  throw InvalidOptionError.invalid(owner, 'random', value, 'a Random (an object with next())');
}
