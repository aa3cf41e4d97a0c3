import { describe, expect, it } from 'vitest';
import { pearson, ranks, slopes2, spearman } from '../../src/detect/correlation.js';
import { detectRamp, type RampObservation } from '../../src/detect/ramp.js';
import { seededRandom } from '../../src/random.js';
import { jitter } from './traffic.js';

/** `n` requests; `rate(i)` req/s and `latency(i, rate)` ms before ±30 % noise. */
function client(
  n: number,
  rate: (i: number) => number,
  latency: (i: number, rate: number) => number,
  seed = 1,
): RampObservation[] {
  const random = seededRandom(seed);
  let at = 0;
  return Array.from({ length: n }, (_, index) => {
    const currentRate = rate(index);
    at += 1000 / currentRate;
    return { index, at, currentRate, latencyMs: jitter(random, latency(index, currentRate), 0.3) };
  });
}

/** A pacer's sawtooth: +1 req/s every 50 requests from 2 to 10, then halve. */
const sawtooth = (i: number): number => 2 + (Math.floor(i / 50) % 9);

describe('detectRamp', () => {
  it('finds +40 ms per 100 requests at a constant rate (the ramp server model)', () => {
    // The mock adds 40 ms per 100 requests received, in steps.
    const result = detectRamp(
      client(
        2000,
        () => 2,
        (i) => 200 + 40 * Math.floor(i / 100),
      ),
    );
    expect(result.verdict).toBe('ramp');
    expect(result.slopeMsPer100).toBeGreaterThan(36);
    expect(result.slopeMsPer100).toBeLessThan(44);
    expect(result.indexCorrelation).toBeGreaterThan(0.8);
    expect(result.explanation).toMatch(
      /^latency climbs with the count: (39|40|41)\.\d ms\/100 requests/,
    );
  });

  it('finds the ramp even while the rate moves, by holding the rate fixed', () => {
    const observations = client(2000, sawtooth, (i, rate) => 200 + 0.4 * i + 5 * rate, 2);
    const result = detectRamp(observations);
    expect(result.verdict).toBe('ramp');
    expect(result.slopeMsPer100).toBeCloseTo(40, -1);
  });

  it('says rate-driven when latency tracks the rate instead', () => {
    const result = detectRamp(client(2000, sawtooth, (_, rate) => 100 + 60 * rate, 3));
    expect(result.verdict).toBe('rate-driven');
    expect(result.rateCorrelation).toBeGreaterThan(0.5);
    expect(Math.abs(result.slopeMsPer100)).toBeLessThan(2);
  });

  it('says none for noise and for a ramp too small to matter', () => {
    expect(
      detectRamp(
        client(
          1000,
          () => 3,
          () => 250,
          4,
        ),
      ).verdict,
    ).toBe('none');
    const tiny = detectRamp(
      client(
        1000,
        () => 3,
        (i) => 250 + 0.002 * i,
        5,
      ),
    );
    expect(tiny.verdict).toBe('none');
  });

  it('admits when count and rate moved together', () => {
    // A controller cutting the rate steadily while latency climbs: count and rate are one line.
    const observations = client(
      1000,
      (i) => 10 - i / 125,
      (i) => 200 + 0.4 * i,
      6,
    );
    expect(detectRamp(observations).verdict).toBe('confounded');
  });

  it('needs enough usable observations', () => {
    const few = client(
      10,
      () => 1,
      (i) => 100 + 100 * i,
    );
    expect(detectRamp(few).verdict).toBe('insufficient-data');
    const junk = few.map((o) => ({ ...o, latencyMs: Number.NaN }));
    expect(detectRamp([...junk, ...junk, ...junk, ...junk], { minSamples: 3 }).samples).toBe(0);
    expect(() => detectRamp([], { minCorrelation: 2 })).toThrow(/minCorrelation/);
  });
});

describe('correlation helpers', () => {
  it('ranks ties by their average rank', () => {
    expect(ranks([10, 30, 20, 20])).toEqual([1, 4, 2.5, 2.5]);
  });

  it('computes Pearson and Spearman, 0 for constant series', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3], [5, 5, 5])).toBe(0);
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it('separates two predictors in a least-squares fit', () => {
    const x = [1, 2, 3, 4, 5, 6];
    const z = [3, 1, 4, 1, 5, 9];
    const y = x.map((xi, i) => 7 + 2 * xi - 3 * (z[i] as number));
    const { bx, bz } = slopes2(x, z, y);
    expect(bx).toBeCloseTo(2, 9);
    expect(bz).toBeCloseTo(-3, 9);
    expect(slopes2(x, [1, 1, 1, 1, 1, 1], x)).toEqual({ bx: 1, bz: 0 });
  });
});
