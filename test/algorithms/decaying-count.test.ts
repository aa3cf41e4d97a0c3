import { describe, expect, it } from 'vitest';
import { DecayingCount } from '../../src/algorithms/decaying-count.js';

describe('DecayingCount', () => {
  it('measures a steady stream, even from a short history', () => {
    const count = new DecayingCount(1000);
    for (let t = 0; t < 500; t += 1000 / 30) count.add(t);
    expect(count.perSecond(500, 0)).toBeGreaterThan(27); // 15 events: within 10 %
    expect(count.perSecond(500, 0)).toBeLessThan(33);
    for (let t = 500; t < 10_000; t += 1000 / 30) count.add(t);
    expect(count.perSecond(10_000, 0)).toBeCloseTo(30, 0);
  });

  it('forgets: five time constants after the stream stops, almost nothing is left', () => {
    const count = new DecayingCount(1000);
    for (let t = 0; t < 10_000; t += 10) count.add(t);
    expect(count.perSecond(10_000, 0)).toBeCloseTo(100, -1);
    expect(count.perSecond(15_000, 0)).toBeLessThan(1);
  });

  it('spreads a rate over a span like a dense stream of events', () => {
    const spread = new DecayingCount(1000);
    const dense = new DecayingCount(1000);
    spread.spread(0, 3000, 20);
    for (let t = 0.5; t < 3000; t += 1) dense.add(t, 0.02);
    expect(spread.perSecond(3000, 0)).toBeCloseTo(20, 5);
    expect(spread.perSecond(3000, 0)).toBeCloseTo(dense.perSecond(3000, 0), 2);
  });

  it('counts events that arrive out of order as of the latest time', () => {
    const count = new DecayingCount(1000);
    count.add(2000);
    count.add(1000);
    expect(count.sum).toBe(2);
    expect(count.at).toBe(2000);
  });
});
