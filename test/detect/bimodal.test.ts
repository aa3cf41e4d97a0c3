import { describe, expect, it } from 'vitest';
import { detectBimodal } from '../../src/detect/bimodal.js';
import { seededRandom } from '../../src/random.js';
import { jitter } from './traffic.js';

const random = seededRandom('bimodal');
/** `n` latencies: `share` of them around `slowMs`, the rest around `fastMs`, ±30 %. */
function mixture(n: number, share: number, fastMs: number, slowMs: number): number[] {
  return Array.from({ length: n }, (_, i) => jitter(random, i < share * n ? slowMs : fastMs, 0.3));
}
const normal = (): number =>
  Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());

describe('detectBimodal', () => {
  it('finds a queue-with-timeout: 70 % at 100 ms, 30 % at 3 s', () => {
    const result = detectBimodal(mixture(400, 0.3, 100, 3000));
    expect(result.bimodal).toBe(true);
    expect(result.fast.share).toBeCloseTo(0.7, 5);
    expect(result.slow.share).toBeCloseTo(0.3, 5);
    expect(result.fast.medianMs).toBeGreaterThan(80);
    expect(result.fast.medianMs).toBeLessThan(120);
    expect(result.slow.medianMs).toBeGreaterThan(2400);
    expect(result.slow.medianMs).toBeLessThan(3600);
    expect(result.gapMs).toBeGreaterThan(1500);
    expect(result.separation).toBeGreaterThan(10);
    expect(result.explanation).toMatch(/^two clusters.*70 % around \d+ ms, 30 % around \d+ ms/);
  });

  it('finds it from a few dozen requests too', () => {
    expect(detectBimodal(mixture(30, 0.3, 100, 3000)).bimodal).toBe(true);
  });

  it.each([
    ['uniform ±30 %', () => jitter(random, 300, 0.3)],
    ['log-normal σ 1', () => 300 * Math.exp(normal())],
    ['exponential', () => -300 * Math.log(1 - random.next())],
    ['Pareto α 1.5', () => 100 / (1 - random.next()) ** (1 / 1.5)],
  ])('calls unimodal noise (%s) unimodal', (_, draw) => {
    for (const n of [50, 500]) {
      for (let k = 0; k < 20; k++)
        expect(detectBimodal(Array.from({ length: n }, draw)).bimodal).toBe(false);
    }
  });

  it('does not split rounded latencies, close modes, or a couple of outliers', () => {
    const rounded = Array.from({ length: 200 }, (_, i) => (i % 2 ? 100 : 101));
    expect(detectBimodal(rounded).bimodal).toBe(false);
    // Two tight, well separated clusters only 1.5× apart (cache hit vs miss), not a queue timeout.
    const close = Array.from({ length: 300 }, (_, i) => jitter(random, i % 3 ? 200 : 300, 0.03));
    const verdict = detectBimodal(close);
    expect(verdict.separation).toBeGreaterThan(6); // well past the 4.7 needed at n = 300
    expect(verdict.bimodal).toBe(false);
    expect(verdict.explanation).toMatch(/^modes closer than 2×/);
    const outliers = [...mixture(98, 0, 100, 100), 30_000, 31_000];
    const result = detectBimodal(outliers);
    expect(result.bimodal).toBe(false);
    expect(result.explanation).toMatch(/smaller cluster under 5 % or 3 requests/);
  });

  it('needs enough usable latencies and never splits fewer than two', () => {
    expect(detectBimodal([]).bimodal).toBe(false);
    expect(detectBimodal([]).fast.count).toBe(0);
    const one = detectBimodal([42]);
    expect(one.fast).toMatchObject({ medianMs: 42, share: 1, count: 1 });
    expect(one.slow.count).toBe(0);
    const few = detectBimodal([100, 100, 3000, 3000, Number.NaN, -1]);
    expect(few.samples).toBe(4);
    expect(few.explanation).toBe('4 latencies, 20 needed');
    expect(() => detectBimodal([], { minShare: 0.9 })).toThrow(/minShare/);
  });
});
