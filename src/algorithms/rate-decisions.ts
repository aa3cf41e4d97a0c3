import type { RateDecisionState } from './adaptive-rate-state.js';
import { type ClockReading, fromWall, toWall } from './clock-reading.js';
import { NEVER } from './congestion.js';

/** What an adaptive rate has decided, its times in this process's monotonic ms. */
export interface RateDecisions {
  /** The learned ceiling in requests/s, 0 when none (unpaced). */
  ceiling: number;
  /** How far below the ceiling the rate is held, a fraction. */
  margin: number;
  /** No probe starts before this time. */
  holdUntil: number;
  /** `at` of the last decrease. */
  lastDecreaseAt: number;
}

/** Nothing decided yet: unpaced, `margin` below a ceiling once there is one. */
export function freshDecisions(margin: number): RateDecisions {
  return { ceiling: 0, margin, holdUntil: NEVER, lastDecreaseAt: NEVER };
}

/** The decisions as plain state, times as wall-clock epoch ms; `probeMs` undefined while holding. */
export function decisionsToState(
  decisions: RateDecisions,
  probeMs: number | undefined,
  clocks: ClockReading,
): RateDecisionState {
  return {
    ceiling: decisions.ceiling,
    margin: decisions.margin,
    probeMs: probeMs ?? -1,
    holdUntil: toWall(decisions.holdUntil, clocks),
    lastDecreaseAt: toWall(decisions.lastDecreaseAt, clocks),
  };
}

/** The decisions of validated plain state (see {@link decisionsToState}) in this process's time. */
export function decisionsFromState(state: RateDecisionState, clocks: ClockReading): RateDecisions {
  return {
    ceiling: state.ceiling,
    margin: state.margin,
    holdUntil: fromWall(state.holdUntil, clocks),
    lastDecreaseAt: fromWall(state.lastDecreaseAt, clocks),
  };
}
