import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { type NumberRule, sharedSettings } from '../options.js';

/** Options of {@link AdaptiveRate}. */
export interface AdaptiveRateOptions {
  /**
   * A first rate to pace at, in requests/s, from which the rate probes upward
   * until the first throttling. Not a cap (see `documentedRate`).
   * @default Infinity (unpaced: the concurrency limit governs until the first throttling)
   */
  startRate?: number;
  /**
   * The rate the server documents, in requests/s (60 per minute → 1). The rate
   * never exceeds it, whatever is learned.
   * @default Infinity (none)
   */
  documentedRate?: number;
  /** The learned rate never falls below this, in requests/s. @default 0.1 */
  minRate?: number;
  /**
   * How far below the learned ceiling the rate is held at first, a fraction.
   * It adapts: a refusal at the held rate widens it (the ceiling is noisier
   * than it looked), a probe that finds the same ceiling again narrows it,
   * within 1 %–25 %.
   * @default 0.03
   */
  margin?: number;
  /**
   * The share of requests that probing may spend on refusals: the budget a
   * probe above the ceiling is paid from (see `ProbeBudget`). 0.01 keeps
   * refusals near 1 % of requests; smaller probes less often (a capacity that
   * rose is found later), larger more often. A scope sending fewer than 2
   * requests a second earns as if it sent 2 (about one probe a minute at
   * 0.01), so its refused share can be higher; 0 turns probing off.
   * @default 0.01
   */
  refusedShare?: number;
  /**
   * The share of time that probing may spend in server-requested pauses: a
   * probe that draws a 2 s `Retry-After` is paid for by 40 s of pause-free
   * running at 0.05. Larger finds a capacity that rose sooner where each
   * refusal costs a pause, and spends more of the time paused.
   * @default 0.05
   */
  pausedShare?: number;
  /** First excess of a probe over the ceiling, a fraction. @default 0.05 */
  probeStep?: number;
  /** Time for a probe's excess over the ceiling to double, ms. @default 1000 */
  probeDoublingMs?: number;
  /** Shortest time at the held rate after a cut before probing again, ms. @default 2000 */
  minHoldMs?: number;
  /** Factor applied to the ceiling on overload (`cut-hard`, a failing origin). @default 0.7 */
  overloadRatio?: number;
  /** Milliseconds after an overload before the rate may probe again. @default 5000 */
  overloadHoldMs?: number;
  /**
   * Span over which the accepted and sent rates are averaged, ms: older
   * outcomes fade with a time constant of half of it.
   * @default 2000
   */
  windowMs?: number;
  /**
   * Shortest pause on a Retry-After, ms. `Retry-After: 0` means "stop now, ask
   * again later", not "go on" — except on a refusal for concurrency, which
   * gets no pause unless it asks for one: a free slot is what it lacked.
   * @default 500
   */
  minPauseMs?: number;
}

/** Validated {@link AdaptiveRateOptions}, every default applied. */
export type AdaptiveRateSettings = Required<AdaptiveRateOptions>;

const POSITIVE: NumberRule = { min: Number.MIN_VALUE };
const SHARE: NumberRule = { min: 0, max: 0.5 };

const readOptions = defineOptions<AdaptiveRateOptions>()('AdaptiveRate', {
  startRate: number(Infinity, { ...POSITIVE, infinite: true }),
  documentedRate: number(Infinity, { ...POSITIVE, infinite: true }),
  minRate: number(0.1, POSITIVE),
  margin: number(0.03, { min: 0.01, max: 0.25 }),
  refusedShare: number(0.01, SHARE),
  pausedShare: number(0.05, SHARE),
  probeStep: number(0.05, { min: 0.001, max: 1 }),
  probeDoublingMs: number(1000, { min: 1 }),
  minHoldMs: number(2000, { min: 0 }),
  overloadRatio: number(0.7, { min: 0.01, max: 1 }),
  overloadHoldMs: number(5000, { min: 0 }),
  windowMs: number(2000, { min: 100 }),
  minPauseMs: number(500, { min: 0 }),
});

/**
 * Validates options, naming the option, the value and the expectation on
 * error. An options object is read once: the frozen settings are shared by
 * every instance built from it.
 */
export const adaptiveRateSettings = sharedSettings(
  (options: AdaptiveRateOptions): AdaptiveRateSettings => Object.freeze(readOptions(options)),
);
