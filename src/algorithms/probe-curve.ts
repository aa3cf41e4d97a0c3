/**
 * How far a probe goes above the learned ceiling: it starts a step above it
 * (`firstStep`, e.g. 5 %) and the excess doubles every `doublingMs`, so a
 * capacity that did not move is exceeded at once and by little (one cheap
 * refusal), while a capacity that rose 4× is reached within a few doublings.
 * Scale-free: the same shape at 2 or 2000 requests/s.
 */
export interface ProbeCurve {
  /** The learned ceiling probed from, requests/s (> 0). */
  readonly ceiling: number;
  /** The first excess over it, a fraction (> 0). */
  readonly firstStep: number;
  /** Time for the excess to double, ms (> 0). */
  readonly doublingMs: number;
}

/** The probing rate `elapsedMs` into the probe, requests/s. */
export function probeRate(curve: ProbeCurve, elapsedMs: number): number {
  const excess = curve.firstStep * 2 ** (Math.max(0, elapsedMs) / curve.doublingMs);
  return curve.ceiling * (1 + Math.min(excess, MAX_EXCESS));
}

/** A probe never asks for more than this multiple of its ceiling (an unlimited server is unpaced in effect). */
const MAX_EXCESS = 1e6;
/** A probe asks for at most this multiple of the larger of the ceiling and what is accepted. */
const PROBE_REACH = 2;

/**
 * The rate `probeMs` into a probe on `curve`, but never further ahead than
 * twice the larger of the ceiling and what the server is accepting
 * (`accepted`, requests/s): errors that are not refusals — a server failing
 * everything — stop it there. Never below `minRate`.
 */
export function probingRate(
  curve: ProbeCurve,
  probeMs: number,
  accepted: number,
  minRate: number,
): number {
  const reach = PROBE_REACH * Math.max(curve.ceiling, accepted);
  return Math.max(minRate, Math.min(probeRate(curve, probeMs), reach));
}
