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

function scaled(margin: number, factor: number): number {
  return Math.min(MARGIN.max, Math.max(MARGIN.min, margin * factor));
}
