import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/random.js';
import { HealthyModel } from '../../../src/sim/models/healthy.js';
import { arriveAll, evenly } from './arrivals.js';

describe('HealthyModel', () => {
  it('answers 200 after a constant 200 ms', () => {
    const replies = arriveAll(new HealthyModel(), evenly(50, 0, 1));
    expect(replies.every((r) => r.status === 200 && r.ttfbMs === 200)).toBe(true);
  });

  it('adds seeded jitter: reproducible by seed, spread over [latency, latency + jitter)', () => {
    const run = (seed: number) =>
      arriveAll(
        new HealthyModel({ latencyMs: 100, jitterMs: 50, random: seededRandom(seed) }),
        evenly(500),
      ).map((r) => r.ttfbMs);
    const a = run(7);
    expect(run(7)).toEqual(a);
    expect(run(8)).not.toEqual(a);
    expect(Math.min(...a)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...a)).toBeLessThan(150);
    expect(Math.max(...a) - Math.min(...a)).toBeGreaterThan(45);
  });

  it('rejects a random that is not one', () => {
    expect(() => new HealthyModel({ random: {} as never })).toThrow(/`random`.*next\(\)/);
  });
});
