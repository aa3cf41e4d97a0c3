import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WindowCounter } from '../../../src/sim/models/window-counter.js';

/** A counter that has counted one request at each of `times` (in order). */
function counted(times: readonly number[], windowMs: number, phaseMs = 0): WindowCounter {
  const counter = new WindowCounter(windowMs, phaseMs);
  for (const at of times) counter.add(at);
  return counter;
}

const repeat = (n: number, at: number) => Array.from({ length: n }, () => at);

describe('WindowCounter', () => {
  it('weights the previous window by how much of it still overlaps', () => {
    const adds = [...repeat(10, 200), ...repeat(3, 1200)];
    expect(counted(adds, 1000).estimate(1200)).toBeCloseTo(10 * 0.8 + 3, 9);
    expect(counted(adds, 1000).estimate(1500)).toBeCloseTo(10 * 0.5 + 3, 9);
    expect(counted(adds, 1000).estimate(1999)).toBeCloseTo(10 * 0.001 + 3, 9);
    // A window later the ten have left the estimate, the three are the previous window.
    expect(counted(adds, 1000).estimate(2500)).toBeCloseTo(3 * 0.5, 9);
    // Two windows later nothing is left.
    expect(counted(adds, 1000).estimate(3000)).toBe(0);
  });

  it('counts windows from phaseMs', () => {
    const adds = repeat(10, 900);
    // Windows [0, 1000): at 1500 the ten weigh half.
    expect(counted(adds, 1000).estimate(1500)).toBeCloseTo(5, 9);
    // Windows [400, 1400), [1400, 2400): at 1500 the ten weigh 0.9.
    expect(counted(adds, 1000, 400).estimate(1500)).toBeCloseTo(9, 9);
    // … and at 1300 they are still the current window.
    expect(counted(adds, 1000, 400).estimate(1300)).toBe(10);
    // Full: to the next window, where the ten weigh all of the limit until a millisecond in.
    expect(counted(adds, 1000, 400).waitFor(1300, 10)).toBeCloseTo(100 + 1, 9);
  });

  it('waits the time until the weighted previous window leaves room', () => {
    const adds = [...repeat(10, 0), ...repeat(5, 1000)];
    // At 1400: 10 × 0.6 + 5 = 11; one more fits once 10 × (1 − e) + 5 < 10, past e = 0.5.
    expect(counted(adds, 1000).waitFor(1400, 10)).toBeCloseTo(100 + 1, 9);
    expect(counted(adds, 1000).waitFor(1600, 10)).toBe(0);
    // Over the limit in this window: to the next one, then until 12 × (1 − e) < 10.
    const over = [...repeat(12, 1000)];
    expect(counted(over, 1000).waitFor(1200, 10)).toBeCloseTo(800 + 1000 / 6 + 1, 9);
  });

  it('waitFor: one more fits after the wait, and not a millisecond before it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6000 }), { maxLength: 80 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.constantFrom(1000, 2500, 10_000),
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 25 }),
        (raw, later, windowMs, rawPhase, limit) => {
          const times = [...raw].sort((a, b) => a - b);
          const phaseMs = rawPhase % windowMs;
          const at = (times.at(-1) ?? 0) + later;
          const wait = counted(times, windowMs, phaseMs).waitFor(at, limit);
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(Number.isFinite(wait)).toBe(true);
          expect(counted(times, windowMs, phaseMs).admits(at + wait, limit)).toBe(true);
          if (wait >= 2) {
            const before = counted(times, windowMs, phaseMs).estimate(at + wait - 1);
            expect(before).toBeGreaterThanOrEqual(limit - 1e-9);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
