import { type NumberRule, savedNumbers, savedRecord } from '../options.js';
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
const ANY: NumberRule = {};

/** How each decision field of saved state is checked. */
export const DECISION_RULES: Readonly<Record<keyof RateDecisionState, NumberRule>> = {
  ceiling: RATE,
  margin: { min: 0, max: 0.5 },
  probeMs: { min: -1 },
  holdUntil: ANY,
  lastDecreaseAt: ANY,
};

/** How each measurement field of saved state (see {@link RateMeterState}) is checked. */
export const METER_RULES: Readonly<Record<keyof RateMeterState, NumberRule>> = {
  startedAt: ANY,
  lastAt: ANY,
  rttMs: RATE,
  unpacedAt: ANY,
  pauseFrom: ANY,
  pauseTo: ANY,
  offeredSincePause: RATE,
  acceptedSum: RATE,
  acceptedAt: ANY,
  offeredSum: RATE,
  offeredAt: ANY,
};

/** How each field of saved quota state is checked. */
const QUOTA_RULES: Readonly<Record<keyof QuotaPaceState, NumberRule>> = {
  cap: RATE,
  expiresAt: RATE,
  policyCap: RATE,
  windowMs: RATE,
  resetAt: RATE,
};

/** Reads saved quota state, validating each field; undefined when none was saved. */
export function readQuotaPace(
  state: Readonly<Record<string, unknown>>,
  owner: string,
): QuotaPaceState | undefined {
  const record = savedRecord(owner, 'quota', state.quota);
  return record && savedNumbers(`${owner} quota`, record, QUOTA_RULES, 0);
}
