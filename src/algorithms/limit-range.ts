import { number } from '../option-rules.js';
import type { NumberRule } from '../options.js';

/**
 * The option rules every concurrency limit shares: its range (`min`, `max`,
 * integers, `max` at least `min`) and where it starts (`initialLimit`, which
 * the limit clamps into the range).
 */
export const LIMIT_RANGE_SPEC = {
  min: number(1, { min: 1, integer: true }),
  max: number(32, (earlier) => ({ min: earlier.min as number, integer: true })),
  initialLimit: number(4, { min: 1, integer: true }),
};

/** A cut factor: the share of the limit a decrease keeps. */
export const CUT_RATIO: NumberRule = { min: 0.01, max: 1 };
