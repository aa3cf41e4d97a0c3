import { InvalidOptionError } from '../errors.js';
import { type NumberRule, numberOption, savedRecord } from '../options.js';
import type { ProbeBudgetState } from './probe-budget.js';
import type { QuotaPaceState } from './quota-pace.js';
import type { RateMeterState } from './rate-meter-state.js';

/** The decisions of an {@link AdaptiveRate}, apart from its measurements and budget. */
export type RateDecisionState = {
  /** The learned ceiling in requests/s, 0 when none (unpaced). */
  ceiling: number;
  /** How far below the ceiling the rate is held, a fraction. */
  margin: number;
  /** Time into the current probe, ms; -1 while holding. */
  probeMs: number;
  /** No probe starts before this time. */
  holdUntil: number;
  /** `at` of the last decrease. */
  lastDecreaseAt: number;
};

/**
 * Serialisable state of an {@link AdaptiveRate}; numbers only, times as wall-clock epoch ms. Rates of 0 mean "none" (unpaced, no ceiling, no quota cap);
 * times of `NEVER` (`-Number.MAX_VALUE`, see congestion.ts) mean "not yet".
 */
export type AdaptiveRateState = RateDecisionState &
  RateMeterState & {
    budget?: ProbeBudgetState;
    quota?: QuotaPaceState;
  };

const RATE: NumberRule = { min: 0 };

/**
 * Reads the decision fields of state saved by `AdaptiveRate.snapshot()`,
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
  return {
    ceiling: n('ceiling', RATE),
    margin: n('margin', { min: 0, max: 0.5 }),
    probeMs: n('probeMs', { min: -1 }),
    holdUntil: n('holdUntil'),
    lastDecreaseAt: n('lastDecreaseAt'),
  };
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

/** Reads saved quota state, validating each field; undefined when none was saved. */
export function readQuotaPace(
  state: Readonly<Record<string, unknown>>,
  owner: string,
): QuotaPaceState | undefined {
  const record = savedRecord(owner, 'quota', state.quota);
  if (record === undefined) return undefined;
  const n = (name: keyof QuotaPaceState) =>
    numberOption(`${owner} quota`, name, record[name], 0, { min: 0 });
  return {
    cap: n('cap'),
    expiresAt: n('expiresAt'),
    policyCap: n('policyCap'),
    windowMs: n('windowMs'),
    resetAt: n('resetAt'),
  };
}
