import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecayingSum, fadedLength, warmth } from '../../src/detect/ema.js';
import { median, percentiles, quantileSorted } from '../../src/detect/percentiles.js';
import { SortedWindow } from '../../src/detect/sorted-window.js';

describe('percentiles (nearest rank)', () => {
  it('reports observed values: p95 of 1..100 is 95, of 10 values the largest', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(hundred)).toEqual({ p50: 50, p95: 95, p99: 99 });
    expect(quantileSorted([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
    expect(quantileSorted([], 0.5)).toBeUndefined();
    expect(percentiles([])).toBeUndefined();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([])).toBe(0);
  });
});

describe('SortedWindow', () => {
  it('always equals the sorted last N values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 })),
        fc.integer({ min: 1, max: 20 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (xs, capacity, q) => {
          const window = new SortedWindow(capacity);
          xs.forEach((x, i) => {
            window.push(x);
            const last = xs.slice(Math.max(0, i + 1 - capacity), i + 1).sort((a, b) => a - b);
            expect(window.sorted).toEqual(last);
            expect(window.quantile(q)).toBe(quantileSorted(last, q));
          });
          expect(window.full).toBe(xs.length >= capacity);
        },
      ),
    );
  });
});

describe('DecayingSum', () => {
  it('fades by e per time constant and never decays backwards', () => {
    const sum = new DecayingSum(1000);
    sum.add(0, 1);
    expect(sum.valueAt(1000)).toBeCloseTo(Math.exp(-1), 12);
    expect(sum.valueAt(-5000)).toBe(1);
    sum.add(1000, 1);
    expect(sum.valueAt(1000)).toBeCloseTo(1 + Math.exp(-1), 12);
  });

  it('accumulates a steady stream to rate × τ, which warmth() de-biases from the start', () => {
    const tau = 10_000;
    const sum = new DecayingSum(tau);
    for (let t = 100; t <= 3000; t += 100) sum.add(t, 1); // 10 per second for 3 s
    const rate = (1000 * sum.valueAt(3000)) / fadedLength(3000, tau);
    expect(rate).toBeGreaterThan(9.8);
    expect(rate).toBeLessThan(10.4);
    expect(warmth(0, tau)).toBe(0);
    expect(warmth(1e9, tau)).toBe(1);
  });
});
