import { describe, expect, it } from 'vitest';
import { adaptiveRateSettings } from '../../src/algorithms/adaptive-rate-options.js';
import { learnedRate, learnedRateIdle } from '../../src/algorithms/learned-rate.js';
import { RateParts } from '../../src/algorithms/rate-parts.js';
import { sample } from './samples.js';

const parts = (ceiling: number, margin = 0.05) => {
  const made = new RateParts(adaptiveRateSettings({ minRate: 1, probeStep: 0.05 }));
  made.decisions.ceiling = ceiling;
  made.decisions.margin = margin;
  return made;
};

/** `perSecond` requests accepted over [0, toMs), each back 100 ms after it left. */
function accept(into: RateParts, perSecond: number, toMs: number): void {
  for (let sentAt = 0; sentAt < toMs; sentAt += 1000 / perSecond) {
    const s = sample({ sentAt, at: sentAt + 100 });
    into.meter.advance(s, learnedRate(into));
    into.meter.accept(s);
    into.now = s.at;
  }
}

describe('learnedRate', () => {
  it('is unpaced (Infinity) until a ceiling is learned', () => {
    expect(learnedRate(undefined)).toBe(Infinity);
    expect(learnedRate(parts(0))).toBe(Infinity);
  });

  it('holds the margin below the ceiling, never under minRate', () => {
    expect(learnedRate(parts(100, 0.05))).toBeCloseTo(95, 9);
    expect(learnedRate(parts(0.5, 0.05))).toBe(1); // minRate
  });

  it('rises above the ceiling while a probe runs, and further the longer it runs', () => {
    const probing = parts(100);
    accept(probing, 100, 5000);
    probing.prober.setProbe(0);
    const start = learnedRate(probing);
    expect(start).toBeGreaterThan(100);
    probing.prober.advance(3000);
    expect(learnedRate(probing)).toBeGreaterThan(start);
  });
});

describe('learnedRateIdle', () => {
  it('is idle when the server accepts far less than the learned rate, not when it accepts about it', () => {
    const busy = parts(20, 0);
    accept(busy, 20, 10_000);
    expect(learnedRateIdle(busy, 10_100)).toBe(false);
    const idle = parts(20, 0);
    accept(idle, 5, 10_000);
    expect(learnedRateIdle(idle, 10_100)).toBe(true);
  });
});
