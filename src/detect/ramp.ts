import { numberOption, rejectUnknownOptions } from '../options.js';
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

const OWNER = 'detectRamp';
const KNOWN = ['minSamples', 'minCorrelation', 'minRise', 'maxEntanglement'] as const;

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
  rejectUnknownOptions(OWNER, options, KNOWN);
  const minSamples = numberOption(OWNER, 'minSamples', options.minSamples, 30, {
    min: 3,
    integer: true,
  });
  const minCorrelation = numberOption(OWNER, 'minCorrelation', options.minCorrelation, 0.5, {
    min: 0,
    max: 1,
  });
  const minRise = numberOption(OWNER, 'minRise', options.minRise, 0.25, { min: 0 });
  const entangled = numberOption(OWNER, 'maxEntanglement', options.maxEntanglement, 0.9, {
    min: 0,
    max: 1,
  });
  const usable = observations.filter(isUsable);
  const index = usable.map((o) => o.index);
  const rate = usable.map((o) => o.currentRate);
  const latency = usable.map((o) => o.latencyMs);
  const samples = usable.length;
  const empty = { slopeMsPer100: 0, indexCorrelation: 0, rateCorrelation: 0, samples };
  if (samples < minSamples) {
    const explanation = `${samples} observations, ${minSamples} needed`;
    return { verdict: 'insufficient-data', explanation, ...empty };
  }
  const rLI = spearman(latency, index);
  const rLR = spearman(latency, rate);
  const rIR = spearman(index, rate);
  const indexCorrelation = partialCorrelation(rLI, rLR, rIR);
  const rateCorrelation = partialCorrelation(rLR, rLI, rIR);
  const slopeMsPer100 = 100 * slopes2(index, rate, latency).bx;
  const evidence = { slopeMsPer100, indexCorrelation, rateCorrelation, samples };
  const span = spread(index);
  const rise = (slopeMsPer100 / 100) * span;
  const strong = Math.max(Math.abs(rLI), Math.abs(rLR)) >= minCorrelation;
  const figures = `${fmt(slopeMsPer100)} ms/100 requests over ${Math.round(span)} requests in ${minutes(usable)} min; r(count|rate) ${fmt(indexCorrelation, 2)}, r(rate|count) ${fmt(rateCorrelation, 2)}`;
  if (Math.abs(rIR) >= entangled && strong) {
    const explanation = `count and rate moved together (r ${fmt(rIR, 2)}); vary the rate to tell them apart; ${figures}`;
    return { verdict: 'confounded', explanation, ...evidence };
  }
  const ramp =
    indexCorrelation >= minCorrelation &&
    indexCorrelation > Math.abs(rateCorrelation) &&
    rise >= minRise * median(latency);
  if (ramp)
    return {
      verdict: 'ramp',
      explanation: `latency climbs with the count: ${figures}`,
      ...evidence,
    };
  if (
    Math.abs(rateCorrelation) >= minCorrelation &&
    Math.abs(rateCorrelation) >= indexCorrelation
  ) {
    return {
      verdict: 'rate-driven',
      explanation: `latency follows the rate: ${figures}`,
      ...evidence,
    };
  }
  return { verdict: 'none', explanation: `no driver: ${figures}`, ...evidence };
}

function isUsable(o: RampObservation): boolean {
  return (
    isPlausible(o.index) &&
    isPlausible(o.at) &&
    isDuration(o.latencyMs) &&
    isDuration(o.currentRate)
  );
}

function minutes(observations: readonly RampObservation[]): string {
  return fmt(spread(observations.map((o) => o.at)) / 60_000);
}

function fmt(value: number, digits = 1): string {
  return value.toFixed(digits);
}
