import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { partialCorrelation, slopes2, spearman } from './correlation.js';
import { isDuration, isPlausible, spread } from './numbers.js';
import { median } from './percentiles.js';

/** One request of a client, for {@link detectRamp}. */
export interface RampObservation {
  /** Cumulative request count of this client (egress IP, session) when it was sent. */
  index: number;
  /** When it was sent, monotonic ms (used for the time span in the explanation). */
  at: number;
  /** Its latency, ms. */
  latencyMs: number;
  /** The sending rate at the time, requests/s. */
  currentRate: number;
}

/** What drives latency. */
export type RampVerdict =
  /** Latency grows with the client's cumulative request count: a per-client pacing ramp. */
  | 'ramp'
  /** Latency follows the current sending rate: ordinary load, slowing down helps. */
  | 'rate-driven'
  /** Rate and request count moved together, so the data cannot tell them apart. */
  | 'confounded'
  /** Neither explains the latency. */
  | 'none'
  /** Too few observations. */
  | 'insufficient-data';

/** Options for {@link detectRamp}. */
export interface RampOptions {
  /** Observations needed for a verdict. @default 30 */
  minSamples?: number;
  /** Rank correlation (partial, the other factor held fixed) needed to name a driver. @default 0.5 */
  minCorrelation?: number;
  /** A ramp must add at least this fraction of the median latency over the observed span. @default 0.25 */
  minRise?: number;
  /** Rank correlation between count and rate above which they are too entangled to separate. @default 0.9 */
  maxEntanglement?: number;
}

/** The verdict with its evidence. */
export interface RampResult {
  /** What drives latency. */
  verdict: RampVerdict;
  /** Latency added per 100 requests with the rate held fixed, ms (least squares). */
  slopeMsPer100: number;
  /** Spearman correlation of latency with the count, the rate held fixed. */
  indexCorrelation: number;
  /** Spearman correlation of latency with the rate, the count held fixed. */
  rateCorrelation: number;
  /** Observations used. */
  samples: number;
  /** One line saying why. */
  explanation: string;
}

const UNIT = { min: 0, max: 1 };
const readOptions = defineOptions<RampOptions>()('detectRamp', {
  minSamples: number(30, { min: 3, integer: true }),
  minCorrelation: number(0.5, UNIT),
  minRise: number(0.25, { min: 0 }),
  maxEntanglement: number(0.9, UNIT),
});

/**
 * Per-client pacing ramp test: does latency follow the cumulative request
 * count (the target slows *this client* down the more it has asked) or the
 * current rate (ordinary load)? A controller that backs off while the ramp
 * grows makes the two move together, so each is judged by its *partial* rank
 * correlation with the other held fixed, and the slope comes from a
 * two-predictor least-squares fit (latency ≈ a + b·count + c·rate), reported
 * as ms per 100 requests. With a constant rate this is the plain correlation
 * and slope against the count. Observations with non-finite or negative
 * values are skipped.
 */
export function detectRamp(
  observations: readonly RampObservation[],
  options: RampOptions = {},
): RampResult {
  const limits = readOptions(options);
  const usable = observations.filter(isUsable);
  const samples = usable.length;
  if (samples < limits.minSamples) {
    return {
      verdict: 'insufficient-data',
      explanation: `${samples} observations, ${limits.minSamples} needed`,
      ...{ slopeMsPer100: 0, indexCorrelation: 0, rateCorrelation: 0, samples },
    };
  }
  const e = measure(usable);
  const figures = `${fmt(e.slopeMsPer100)} ms/100 requests over ${Math.round(e.span)} requests in ${fmt(e.minutes)} min; r(count|rate) ${fmt(e.indexCorrelation, 2)}, r(rate|count) ${fmt(e.rateCorrelation, 2)}`;
  const [verdict, why] = judge(e, limits);
  const { slopeMsPer100, indexCorrelation, rateCorrelation } = e;
  const evidence = { slopeMsPer100, indexCorrelation, rateCorrelation, samples };
  return { verdict, explanation: `${why}: ${figures}`, ...evidence };
}

interface Evidence {
  slopeMsPer100: number;
  indexCorrelation: number;
  rateCorrelation: number;
  /** Plain rank correlations: latency–count, latency–rate, count–rate. */
  rLI: number;
  rLR: number;
  rIR: number;
  /** Requests and minutes the observations span. */
  span: number;
  minutes: number;
  medianLatency: number;
}

function measure(usable: readonly RampObservation[]): Evidence {
  const index = usable.map((o) => o.index);
  const rate = usable.map((o) => o.currentRate);
  const latency = usable.map((o) => o.latencyMs);
  const rLI = spearman(latency, index);
  const rLR = spearman(latency, rate);
  const rIR = spearman(index, rate);
  return {
    slopeMsPer100: 100 * slopes2(index, rate, latency).bx,
    indexCorrelation: partialCorrelation(rLI, rLR, rIR),
    rateCorrelation: partialCorrelation(rLR, rLI, rIR),
    ...{ rLI, rLR, rIR },
    span: spread(index),
    minutes: spread(usable.map((o) => o.at)) / 60_000,
    medianLatency: median(latency),
  };
}

function judge(e: Evidence, limits: Required<RampOptions>): [RampVerdict, string] {
  const strong = Math.max(Math.abs(e.rLI), Math.abs(e.rLR)) >= limits.minCorrelation;
  if (Math.abs(e.rIR) >= limits.maxEntanglement && strong) {
    return [
      'confounded',
      `count and rate moved together (r ${fmt(e.rIR, 2)}); vary the rate to tell them apart`,
    ];
  }
  const rise = (e.slopeMsPer100 / 100) * e.span;
  const byCount = e.indexCorrelation;
  const byRate = Math.abs(e.rateCorrelation);
  if (
    byCount >= limits.minCorrelation &&
    byCount > byRate &&
    rise >= limits.minRise * e.medianLatency
  ) {
    return ['ramp', 'latency climbs with the count'];
  }
  if (byRate >= limits.minCorrelation && byRate >= byCount) {
    return ['rate-driven', 'latency follows the rate'];
  }
  return ['none', 'no driver'];
}

function isUsable(o: RampObservation): boolean {
  return (
    isPlausible(o.index) &&
    isPlausible(o.at) &&
    isDuration(o.latencyMs) &&
    isDuration(o.currentRate)
  );
}

function fmt(value: number, digits = 1): string {
  return value.toFixed(digits);
}
