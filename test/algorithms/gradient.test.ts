import { describe, expect, it } from 'vitest';
import { GradientLimit } from '../../src/algorithms/gradient.js';
import { type Random, seededRandom, uniform } from '../../src/random.js';
import { SAME_CLOCKS, throughJson } from './clocks.js';
import { sample } from './samples.js';

/**
 * Feeds `seconds` of a closed loop at full use of the limit: each round trip
 * `limit` requests come back after `rttAt(t)` ms (± `jitter`, a fraction).
 */
function drive(
  limit: GradientLimit,
  from: number,
  seconds: number,
  rttAt: (t: number) => number,
  random?: Random,
  jitter = 0,
): number {
  let t = from;
  while (t < from + seconds * 1000) {
    const inflight = limit.limit;
    const base = rttAt(t);
    for (let i = 0; i < inflight; i++) {
      const rtt = random ? base * uniform(random, 1 - jitter, 1 + jitter) : base;
      limit.onSample(sample({ at: t + rtt, sentAt: t, inflight }));
    }
    t += base;
  }
  return t;
}

describe('GradientLimit', () => {
  it('climbs to max while round trips stay at their no-load time', () => {
    const limit = new GradientLimit();
    drive(limit, 0, 30, () => 100);
    expect(limit.limit).toBe(32);
    expect(limit.noLoadRtt).toBeCloseTo(100);
  });

  it('shrinks when round trips inflate 3x at constant load', () => {
    const limit = new GradientLimit();
    const t = drive(limit, 0, 30, () => 100);
    expect(limit.limit).toBe(32);
    drive(limit, t, 10, () => 300);
    expect(limit.limit).toBeLessThanOrEqual(8);
  });

  it('does not collapse under ±20 % latency jitter (seeded)', () => {
    const limit = new GradientLimit();
    drive(limit, 0, 60, () => 200, seededRandom(7), 0.2);
    expect(limit.limit).toBeGreaterThanOrEqual(28);
  });

  it('re-baselines a server that became slower for good', () => {
    const limit = new GradientLimit();
    let t = drive(limit, 0, 30, () => 100);
    t = drive(limit, t, 10, () => 300);
    const low = limit.limit;
    drive(limit, t, 600, () => 300);
    expect(limit.noLoadRtt).toBeGreaterThan(250);
    expect(limit.limit).toBeGreaterThan(low);
    expect(limit.limit).toBe(32);
  });

  it('does not grow while app-limited, but still shrinks on inflation', () => {
    const limit = new GradientLimit({ initialLimit: 10 });
    for (let i = 0; i < 500; i++)
      limit.onSample(sample({ at: i * 10 + 100, sentAt: i * 10, inflight: 2 }));
    expect(limit.limit).toBe(10);
    for (let i = 0; i < 100; i++)
      limit.onSample(sample({ at: 6000 + i * 10 + 400, sentAt: 6000 + i * 10, inflight: 2 }));
    expect(limit.limit).toBeLessThan(10);
  });

  it('cuts on throttling once per congestion event, deeper on overload', () => {
    const once = new GradientLimit({ initialLimit: 20 });
    once.onSample(sample({ at: 1000, sentAt: 900, kind: 'throttled' }));
    expect(once.limit).toBeLessThan(20);
    const burst = new GradientLimit({ initialLimit: 20 });
    for (let i = 0; i < 10; i++)
      burst.onSample(sample({ at: 1000 + i, sentAt: 900, kind: 'throttled' }));
    expect(burst.limit).toBe(once.limit); // all sent before the cut: one event
    const overloaded = new GradientLimit({ initialLimit: 20 });
    overloaded.onSample(sample({ at: 1000, sentAt: 900, kind: 'overloaded' }));
    expect(overloaded.limit).toBeLessThan(once.limit);
  });

  it('ignores round trips that say nothing (zero, negative)', () => {
    const limit = new GradientLimit({ initialLimit: 10 });
    limit.onSample(sample({ at: 100, sentAt: 100, inflight: 10 }));
    limit.onSample(sample({ at: 100, sentAt: 200, inflight: 10 }));
    expect(limit.noLoadRtt).toBe(0);
    expect(limit.limit).toBe(10);
  });

  it('validates options and state, and resumes from its JSON', () => {
    expect(() => new GradientLimit({ tolerance: 0.5 })).toThrow(
      /`tolerance` must be a number >= 1, got 0.5/,
    );
    expect(() => new GradientLimit({ rttSmoothing: 0 })).toThrow(/rttSmoothing/);
    expect(() => new GradientLimit({ rtt: 1 } as never)).toThrow(/unknown option `rtt`/);
    expect(() => new GradientLimit().restore({ shortRtt: -1 }, SAME_CLOCKS)).toThrow(
      /GradientLimit state.*shortRtt/,
    );
    const first = new GradientLimit();
    drive(first, 0, 5, () => 120);
    const second = new GradientLimit();
    second.restore(throughJson(first.snapshot(SAME_CLOCKS)), SAME_CLOCKS);
    expect(second.snapshot(SAME_CLOCKS)).toEqual(first.snapshot(SAME_CLOCKS));
    expect(second.limit).toBe(first.limit);
  });
});
