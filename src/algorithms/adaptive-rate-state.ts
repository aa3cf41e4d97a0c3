import { InvalidOptionError } from '../errors.js';
import { type NumberRule, numberOption } from '../options.js';
import type { RateMeterState } from './rate-meter.js';

/** The decisions of an {@link AdaptiveRate}, apart from its measurements. */
export type RateDecisionState = {
  /** The learned ceiling in requests/s, 0 when none. */
  ceiling: number;
  /** The probe curve's ceiling in requests/s, 0 when unpaced. */
  curveCeiling: number;
  /** The probe curve's starting rate, requests/s. */
  curveStart: number;
  /** The probe curve's plateau, ms. */
  plateauMs: number;
  /** Time spent on the probe curve, ms (negative during an overload hold). */
  elapsedMs: number;
  /** The highest confirmed ceiling, requests/s (0 when none). */
  peak: number;
  /** When the peak was confirmed. */
  peakAt: number;
  /** `at` of the last decrease. */
  lastDecreaseAt: number;
  /** Rate cap from the server's published quota, 0 when none. */
  quotaCap: number;
  /** When the quota cap goes stale. */
  quotaExpiresAt: number;
};

/**
 * Serialisable state of an {@link AdaptiveRate}; numbers only. Rates of 0 mean "none" (unpaced, no ceiling, no quota cap);
 * times of `NEVER` (`-Number.MAX_VALUE`, see congestion.ts) mean "not yet".
 */
export type AdaptiveRateState = RateDecisionState & RateMeterState;

const RATE: NumberRule = { min: 0 };

/**
 * Reads the decision fields of state saved by `AdaptiveRate.toJSON()`,
 * validating each; missing fields keep their `fresh` value. Throws
 * {@link InvalidOptionError} naming a malformed field.
 */
export function readRateDecisions(
  state: Readonly<Record<string, unknown>>,
  fresh: RateDecisionState,
  owner: string,
): RateDecisionState {
  const n = (name: keyof RateDecisionState, rule: NumberRule = {}) =>
    numberOption(owner, name, state[name], fresh[name], rule);
  const read: RateDecisionState = {
    ceiling: n('ceiling', RATE),
    curveCeiling: n('curveCeiling', RATE),
    curveStart: n('curveStart', RATE),
    plateauMs: n('plateauMs', { min: 0 }),
    elapsedMs: n('elapsedMs'),
    peak: n('peak', RATE),
    peakAt: n('peakAt'),
    lastDecreaseAt: n('lastDecreaseAt'),
    quotaCap: n('quotaCap', RATE),
    quotaExpiresAt: n('quotaExpiresAt'),
  };
  if (read.curveCeiling > 0 && !(read.curveStart > 0)) {
    throw InvalidOptionError.invalid(owner, 'curveStart', state.curveStart, 'a number > 0');
  }
  return read;
}

/**
 * Reads the measurement fields of saved state (see {@link RateMeterState}),
 * validating each; missing fields keep their `fresh` value.
 */
export function readRateMeter(
  state: Readonly<Record<string, unknown>>,
  fresh: RateMeterState,
  owner: string,
): RateMeterState {
  const n = (name: keyof RateMeterState, rule: NumberRule = {}) =>
    numberOption(owner, name, state[name], fresh[name] as number, rule);
  return {
    startedAt: n('startedAt'),
    lastAt: n('lastAt'),
    rttMs: n('rttMs', { min: 0 }),
    unpacedAt: n('unpacedAt'),
    pauseFrom: n('pauseFrom'),
    pauseTo: n('pauseTo'),
    offeredSincePause: n('offeredSincePause', { min: 0 }),
    acceptedSum: n('acceptedSum', { min: 0 }),
    acceptedAt: n('acceptedAt'),
    offeredSum: n('offeredSum', { min: 0 }),
    offeredAt: n('offeredAt'),
  };
}
