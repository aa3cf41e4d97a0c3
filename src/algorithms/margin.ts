import type { LearnedCeiling } from './alarm-cuts.js';

/** A ceiling measured again within this fraction is the same ceiling. */
const SAME = 0.05;
/** The margin below the ceiling stays within these. */
const MARGIN = { min: 0.01, max: 0.25 } as const;
/** A refusal at the held rate widens the margin by this factor; a probe that confirms narrows it. */
const WIDEN = 1.5;
const NARROW = 0.8;

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
