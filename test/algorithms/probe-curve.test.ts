import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { probeRate } from '../../src/algorithms/probe-curve.js';

const curve = { ceiling: 30, firstStep: 0.05, doublingMs: 1000 };

describe('probeRate', () => {
  it('starts one step above the ceiling and doubles the excess every doublingMs', () => {
    expect(probeRate(curve, 0)).toBeCloseTo(31.5, 9);
    expect(probeRate(curve, 1000)).toBeCloseTo(33, 9);
    expect(probeRate(curve, 3000)).toBeCloseTo(42, 9);
    // a capacity four times the ceiling is reached in about 6 doublings
    expect(probeRate(curve, 6000)).toBeGreaterThan(120);
    expect(probeRate(curve, -500)).toBeCloseTo(31.5, 9); // a negative time is the start
  });

  it('is the same shape at any scale', () => {
    const big = { ...curve, ceiling: 3000 };
    expect(probeRate(big, 2500) / 3000).toBeCloseTo(probeRate(curve, 2500) / 30, 9);
  });

  it('never decreases with time and never returns NaN or Infinity (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 1e5, noNaN: true }),
        fc.double({ min: -1e6, max: 1e9, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (ceiling, firstStep, doublingMs, t, dt) => {
          const c = { ceiling, firstStep, doublingMs };
          const a = probeRate(c, t);
          const b = probeRate(c, t + dt);
          expect(Number.isFinite(a)).toBe(true);
          expect(b).toBeGreaterThanOrEqual(a);
          expect(a).toBeGreaterThan(ceiling);
        },
      ),
    );
  });
});
