/**
 * The shape of the sending rate after a cut, CUBIC-like but scale-free (all
 * rates are relative to the learned ceiling, so the timing is the same at 2 or
 * 2000 requests/s):
 *
 * - concave, for `plateauMs`: from `start` back up to the `ceiling`, fast at
 *   first and flattening as it nears it — `ceiling − (ceiling − start)(1 − t/plateau)³`;
 * - convex, afterwards: past the old ceiling, slowly at first and faster once
 *   well beyond it, since by then the old ceiling is evidently stale —
 *   `ceiling × (1 + ((t − plateau) / doublingMs)³)`, twice the ceiling after
 *   `doublingMs` more.
 *
 * CUBIC's curve (rate = ceiling + C(t − K)³) is symmetric around K; here the
 * two halves have their own time scales, so probes can be rare (a long
 * plateau) while a capacity increase is still found within seconds of the
 * first probe that does not fail.
 */
export interface ProbeCurve {
  /** The learned ceiling the curve returns to, requests/s (> 0). */
  ceiling: number;
  /** The rate right after the cut, requests/s (> 0, <= ceiling). */
  start: number;
  /** Time from the cut back to the ceiling, ms (0: start probing at once). */
  plateauMs: number;
  /** Time past the plateau for the rate to double, ms (> 0). */
  doublingMs: number;
}

/** The rate `elapsedMs` after the cut; negative elapsed time (a hold) stays at `start`. */
export function probeRate(curve: ProbeCurve, elapsedMs: number): number {
  const t = Math.max(0, elapsedMs);
  if (t < curve.plateauMs) {
    const left = 1 - t / curve.plateauMs;
    return curve.ceiling - (curve.ceiling - curve.start) * left ** 3;
  }
  const past = (t - curve.plateauMs) / curve.doublingMs;
  return curve.ceiling * (1 + past ** 3);
}
