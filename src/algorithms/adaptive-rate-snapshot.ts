import { savedNumbers } from '../options.js';
import {
  type AdaptiveRateState,
  DECISION_RULES,
  METER_RULES,
  readQuotaPace,
} from './adaptive-rate-state.js';
import type { ClockReading } from './clock-reading.js';
import { readProbeBudget } from './probe-budget-state.js';
import { QuotaPace } from './quota-pace.js';
import { decisionsFromState, decisionsToState, type RateDecisions } from './rate-decisions.js';
import type { RateParts } from './rate-parts.js';

const OWNER = 'AdaptiveRate state';

/** The plain state of `decisions` and `parts`, times as wall-clock epoch ms (`clocks` pairs the clocks now). */
export function rateSnapshot(
  decisions: RateDecisions,
  parts: RateParts,
  clocks: ClockReading,
): AdaptiveRateState {
  const state: AdaptiveRateState = {
    ...decisionsToState(decisions, parts.prober.probeMs, clocks),
    ...parts.meter.snapshot(clocks),
  };
  const budget = parts.prober.budgetState(clocks);
  if (budget !== undefined) state.budget = budget;
  if (parts.quota !== undefined) state.quota = parts.quota.snapshot(clocks);
  return state;
}

/**
 * Restores `decisions` and `parts` (fresh) from a {@link rateSnapshot} taken in
 * this process or another (`clocks` pairs this one's clocks now). Each field is
 * validated (an `InvalidOptionError` names a malformed one) before anything
 * changes; missing fields keep their fresh value.
 */
export function restoreRate(
  saved: Readonly<Record<string, unknown>>,
  decisions: RateDecisions,
  parts: RateParts,
  clocks: ClockReading,
): void {
  const { meter, prober } = parts;
  const fresh = decisionsToState(decisions, prober.probeMs, clocks);
  const state = savedNumbers(OWNER, saved, DECISION_RULES, fresh);
  const meterState = savedNumbers(OWNER, saved, METER_RULES, meter.snapshot(clocks));
  const budget = readProbeBudget(saved, OWNER);
  const quota = readQuotaPace(saved, OWNER);
  meter.restore(meterState, clocks);
  Object.assign(decisions, decisionsFromState(state, clocks));
  prober.setProbe(state.probeMs < 0 || state.ceiling === 0 ? undefined : state.probeMs);
  parts.recounts.firstCounted = state.ceiling > 0;
  if (quota !== undefined) {
    parts.quota = new QuotaPace();
    parts.quota.restore(quota, clocks);
  }
  if (budget !== undefined) prober.restoreBudget(budget, clocks);
}
