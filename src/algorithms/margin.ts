import type { LearnedCeiling } from './alarm-cuts.js';

/** A ceiling measured again within this fraction is the same ceiling. */
const SAME = 0.05;
/** The margin below the ceiling stays within these. */
const MARGIN = { min: 0.01, max: 0.25 } as const;
/** A refusal at the held rate widens the margin by this factor; a probe that confirms narrows it. */
const WIDEN = 1.5;
const NARROW = 0.8;
/** A penalty this long holds the widest margin; a shorter one, a margin in proportion, ms. */
const WIDEST_AFTER_PENALTY_MS = 120_000;

/**
 * The margin after a refusal whose reading is `measured`: a probe that finds
 * the same ceiling again narrows it; a refusal at the held rate with the
 * ceiling where it was widens it (the hold was too close); a ceiling that
 * moved says nothing about the margin. `confirmed`: the ceiling was found
 * where it was.
 */
export function adaptedMargin(
  learned: LearnedCeiling,
  measured: number | undefined,
  probing: boolean,
): { margin: number; confirmed: boolean } {
  const { ceiling: previous, margin } = learned;
  if (previous === 0 || measured === undefined || Math.abs(measured - previous) > SAME * previous) {
    return { margin, confirmed: false };
  }
  return { margin: scaled(margin, probing ? NARROW : WIDEN), confirmed: true };
}

/**
 * The margin after a refusal in a refused probe's aftermath that read the
 * whole rate held (every send since the pause granted): the ceiling held was
 * the probe's reading, and the hold a margin under it was refused — too close,
 * the reading a burst or a window's grant counted on top of the rate. Widened
 * as for a refusal at the held rate with the ceiling where it was: compared
 * with the ceiling, that reading is always a margin below it, and from a
 * margin of {@link SAME} on it never looked "the same" (a GCRA of burst 3 at 3.2
 * req/s, its probes reading 3.9-4.0 after each pause, was refused 6 s after
 * each at 5.4 % under that reading, for minutes).
 */
export function refutedReadingMargin(margin: number): number {
  return scaled(margin, WIDEN);
}

/**
 * The margin after a penalty that asked for a pause of `penaltyMs` (0: no penalty): at least a
 * share of the widest in proportion to that pause (a tenth after a minute's, the widest after
 * two). The margin is what the held rate gives up against a reading's error (a window's count is
 * good to a request or two); what it buys is fewer refusals of the held rate, each costing the
 * pause: where that is a minute, a tenth of the rate costs less than one more.
 */
export function penaltyMargin(margin: number, penaltyMs: number): number {
  const share = Math.min(penaltyMs, WIDEST_AFTER_PENALTY_MS) / WIDEST_AFTER_PENALTY_MS;
  return Math.max(margin, share * MARGIN.max);
}

function scaled(margin: number, factor: number): number {
  return Math.min(MARGIN.max, Math.max(MARGIN.min, margin * factor));
}
