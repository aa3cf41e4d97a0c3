import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ProbeCurve, probeRate } from '../../src/algorithms/probe-curve.js';

const curve: ProbeCurve = { ceiling: 30, start: 28.5, plateauMs: 10_000, doublingMs: 5000 };

describe('probeRate', () => {
  it('starts at the cut, is back at the ceiling after the plateau, doubles after doublingMs more', () => {
    expect(probeRate(curve, 0)).toBe(28.5);
    expect(probeRate(curve, -3000)).toBe(28.5); // an overload hold stays at the start
    expect(probeRate(curve, 10_000)).toBe(30);
    expect(probeRate(curve, 15_000)).toBe(60);
  });

  it('is flat near the ceiling: concave before it, convex after', () => {
    expect(probeRate(curve, 5000)).toBeCloseTo(30 - 1.5 / 8); // (1 − ½)³
    expect(probeRate(curve, 9000)).toBeGreaterThan(29.99);
    expect(probeRate(curve, 11_000)).toBeLessThan(30.25); // +0.8 % one second past the ceiling
  });

  it('never decreases with time and never returns NaN (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.double({ min: -1e6, max: 1e7, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (ceiling, ratio, plateauMs, doublingMs, t, dt) => {
          const c = { ceiling, start: ceiling * ratio, plateauMs, doublingMs };
          const a = probeRate(c, t);
          const b = probeRate(c, t + dt);
          expect(Number.isNaN(a)).toBe(false);
          expect(b).toBeGreaterThanOrEqual(a * (1 - 1e-12));
        },
      ),
    );
  });
});
