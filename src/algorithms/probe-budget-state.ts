import { type NumberRule, savedNumbers, savedRecord } from '../options.js';
import type { ProbeBudgetState } from './probe-budget.js';

const RULES: Readonly<Record<keyof ProbeBudgetState, NumberRule>> = {
  refusalCredit: {},
  pauseCreditMs: {},
  refusalCost: { min: 0 },
  pauseCostMs: { min: 0 },
  patience: { min: 1 },
  at: {},
};
/** What a field not saved reads as: `NaN`, but the patience 1. */
const FALLBACK: Readonly<Record<keyof ProbeBudgetState, number>> = {
  refusalCredit: Number.NaN,
  pauseCreditMs: Number.NaN,
  refusalCost: Number.NaN,
  pauseCostMs: Number.NaN,
  patience: 1,
  at: Number.NaN,
};

/** Reads saved budget state, validating each field; undefined when none was saved. */
export function readProbeBudget(
  state: Readonly<Record<string, unknown>>,
  owner: string,
): ProbeBudgetState | undefined {
  const record = savedRecord(owner, 'budget', state.budget);
  return record && savedNumbers(`${owner} budget`, record, RULES, FALLBACK);
}
