import { autoThrottle } from './autothrottle.js';
import { fixedJitter } from './fixed-jitter.js';
import { fixedSleep } from './fixed-sleep.js';
import { naive } from './naive.js';
import { ratewise } from './ratewise.js';
import { referenceAimd } from './reference-aimd.js';
import type { Strategy } from './strategy.js';

export { autoThrottle } from './autothrottle.js';
export { fixedJitter } from './fixed-jitter.js';
export { fixedSleep } from './fixed-sleep.js';
export { naive } from './naive.js';
export { ratewise, ratewiseStrategy, SIM_SCOPE, withBudget } from './ratewise.js';
export { referenceAimd } from './reference-aimd.js';
export { MAX_ATTEMPTS, type Strategy, type StrategyContext } from './strategy.js';

/** Every strategy `ratewise bench` compares, ratewise last. */
export const STRATEGIES: readonly Strategy[] = [
  naive,
  fixedJitter,
  referenceAimd,
  autoThrottle,
  fixedSleep(500),
  ratewise,
];
