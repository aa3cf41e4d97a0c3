import { type NumberRule, numberOption, savedRecord } from '../options.js';
import type { ProbeBudgetState } from './probe-budget.js';

/** Reads saved budget state, validating each field; undefined when none was saved. */
export function readProbeBudget(
  state: Readonly<Record<string, unknown>>,
  owner: string,
): ProbeBudgetState | undefined {
  const record = savedRecord(owner, 'budget', state.budget);
  if (record === undefined) return undefined;
  const n = (name: keyof ProbeBudgetState, rule: NumberRule = {}) =>
    numberOption(`${owner} budget`, name, record[name], Number.NaN, rule);
  return {
    refusalCredit: n('refusalCredit'),
    pauseCreditMs: n('pauseCreditMs'),
    refusalCost: n('refusalCost', { min: 0 }),
    pauseCostMs: n('pauseCostMs', { min: 0 }),
    patience: numberOption(`${owner} budget`, 'patience', record.patience, 1, { min: 1 }),
    at: n('at'),
  };
}
