import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateInput, RateSchedule } from '../../../src/sim/models/rate-schedule.js';
import { httpDate, retryAfterHeaders } from '../../../src/sim/models/retry-after.js';

const steps = [
  { fromMs: 0, rate: 30 },
  { fromMs: 10_000, rate: 10 },
  { fromMs: 20_000, rate: 40 },
];

describe('RateSchedule', () => {
  it('gives the rate in force at each time', () => {
    const schedule = RateSchedule.from('T', 'rate', steps, 1);
    expect([-5, 0, 9999, 10_000, 19_999, 20_000, 1e9].map((t) => schedule.at(t))).toEqual([
      30, 30, 30, 10, 10, 40, 40,
    ]);
    expect(RateSchedule.from('T', 'rate', undefined, 7).at(123)).toBe(7);
  });

  it('integrates the rate over any interval, additively', () => {
    const schedule = RateSchedule.from('T', 'rate', steps, 1);
    expect(schedule.requestsBetween(5000, 25_000)).toBe(150 + 100 + 200);
    fc.assert(
      fc.property(fc.nat(40_000), fc.nat(40_000), fc.nat(40_000), (a, b, c) => {
        const [x, y, z] = [a, b, c].sort((p, q) => p - q) as [number, number, number];
        const whole = schedule.requestsBetween(x, z);
        const split = schedule.requestsBetween(x, y) + schedule.requestsBetween(y, z);
        expect(Math.abs(whole - split)).toBeLessThan(1e-9);
      }),
    );
  });

  it('rejects malformed schedules', () => {
    for (const bad of [
      [],
      [{ fromMs: 0, rate: 0 }],
      [
        { fromMs: 0, rate: 1 },
        { fromMs: 0, rate: 2 },
      ],
      'x',
      -1,
    ]) {
      expect(() => RateSchedule.from('T', 'rate', bad, 1)).toThrow(/T: option `rate` must be/);
    }
  });

  it('parses the CLI form', () => {
    expect(parseRateInput('30')).toBe(30);
    expect(parseRateInput('30,10@10000,40@20000')).toEqual(steps);
    expect(parseRateInput('30,10')).toBe('30,10');
    expect(parseRateInput('fast')).toBe('fast');
  });
});

describe('retryAfterHeaders', () => {
  it('rounds waits up and never goes negative', () => {
    expect(retryAfterHeaders('seconds', 1, 0)).toEqual({ 'retry-after': '1' });
    expect(retryAfterHeaders('seconds', 2001, 0)).toEqual({ 'retry-after': '3' });
    expect(retryAfterHeaders('seconds', -50, 0)).toEqual({ 'retry-after': '0' });
    expect(retryAfterHeaders('http-date', 1, 1_000)).toEqual({ 'retry-after': httpDate(2_000) });
    expect(httpDate(Date.UTC(1994, 10, 6, 8, 49, 37))).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });
});
