import type { LearnedCeiling } from './alarm-cuts.js';
import type { Sample } from './sample.js';

/** A ceiling measured again within this fraction is the same ceiling. */
const SAME = 0.05;
/** The margin below the ceiling stays within these. */
const MARGIN = { min: 0.01, max: 0.25 } as const;
/** A refusal at the held rate widens the margin by this factor; a probe that confirms narrows it. */
const WIDEN = 1.5;
const NARROW = 0.8;
/** A refusal at the held rate lowers the ceiling to no less than this share of that rate. */
const HELD_CUT = 0.5;

/**
 * The lowest ceiling one congestion event may leave, refused at the learned
 * rate `current` (`Infinity`: unpaced), with `learned` the ceiling before it
 * and `probing` whether the rate was probing above it. A probe refused says
 * only that the capacity is below the probe, not below the rate held without
 * refusal before it; a refusal at the held rate lowers it by at most half (a
 * reading taken across a pause or at a slow pace can be far too low, and the
 * next probe may be a long way off); refused before anything was `measured`
 * (a burst limit met at once), as many per second as were in flight — a guess
 * the first probes soon correct.
 */
export function lowestCeiling(
  sample: Sample,
  current: number,
  measured: boolean,
  learned: LearnedCeiling,
  probing: boolean,
): number {
  if (current === Infinity) return measured ? 0 : sample.inflight;
  if (probing) return learned.ceiling * (1 - learned.margin);
  return current * HELD_CUT;
}

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
  const factor = probing ? NARROW : WIDEN;
  return { margin: Math.min(MARGIN.max, Math.max(MARGIN.min, margin * factor)), confirmed: true };
}
