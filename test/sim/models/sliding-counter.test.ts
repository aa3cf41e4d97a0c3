import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingCounterModel } from '../../../src/sim/models/sliding-counter.js';
import { arriveAll, countStatuses, evenly, requests } from './arrivals.js';

describe('SlidingCounterModel', () => {
  it('admits the limit in a window, then weights it into the next one', () => {
    const model = new SlidingCounterModel({ rate: 10, latencyMs: 100 });
    const first = arriveAll(model, evenly(12, 0, 50));
    expect(countStatuses(first)).toEqual({ 200: 10, 429: 2 });
    expect(first[0]?.ttfbMs).toBe(100);
    // Halfway through the next window the ten weigh 5: five more fit, the sixth does not.
    const half = arriveAll(model, evenly(8, 1500, 0));
    expect(half.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it('refuses with the time until the estimate has room, and serves from then on', () => {
    const model = new SlidingCounterModel({ rate: 10, retryAfter: 'http-date' });
    const next = requests();
    for (let i = 0; i < 10; i++) expect(model.arrive(next(0)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect(model.arrive(next(1500)).status).toBe(200);
    // At 1500: 10 × 0.5 + 5 = 10, not under the limit; a millisecond later it is.
    const refused = model.arrive(next(1500));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('Thu, 01 Jan 2026 00:00:02 GMT');
    expect(model.arrive(next(1500)).status).toBe(429);
    expect(model.arrive(next(1501)).status).toBe(200);
  });

  it("a refusal's Retry-After is honest: coming back then is served", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 150 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(1000, 10_000),
        fc.integer({ min: 0, max: 9999 }),
        (raw, perWindow, windowMs, rawPhase) => {
          const rate = (perWindow * 1000) / windowMs;
          const phaseMs = rawPhase % windowMs;
          const model = new SlidingCounterModel({ rate, windowMs, phaseMs });
          const times = [...raw].sort((a, b) => a - b);
          const replies = arriveAll(model, times);
          const last = replies.length - 1;
          const lastReply = replies[last];
          if (lastReply?.status !== 429) return;
          const back = (times[last] as number) + Number(lastReply.headers['retry-after']) * 1000;
          expect(arriveAll(model, [back])[0]?.status).toBe(200);
        },
      ),
      { numRuns: 300 },
    );
  });

  // With countsRefused the refused request is counted before its wait is stated: a client that
  // waits as told is served.
  it('countsRefused: the Retry-After of a counted refusal is honest too', () => {
    const model = new SlidingCounterModel({ rate: 0.2, windowMs: 10_000, countsRefused: true });
    const [, , refused] = arriveAll(model, [0, 0, 0]); // a limit of 2 per 10 s: the third counts
    expect(refused?.status).toBe(429);
    // 3 counted in [0, 10 s): room once 3 × (1 − e) < 2 in the next window, past e = 1/3: 13.3 s.
    expect(refused?.headers['retry-after']).toBe('14');
    expect(arriveAll(model, [14_000])[0]?.status).toBe(200);
  });

  it('countsRefused, property: coming back after the Retry-After of a counted refusal is served', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 150 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(1000, 10_000),
        (raw, perWindow, windowMs) => {
          const rate = (perWindow * 1000) / windowMs;
          const model = new SlidingCounterModel({ rate, windowMs, countsRefused: true });
          const times = [...raw].sort((a, b) => a - b);
          const replies = arriveAll(model, times);
          const lastReply = replies.at(-1);
          if (lastReply?.status !== 429) return;
          const back = (times.at(-1) as number) + Number(lastReply.headers['retry-after']) * 1000;
          expect(arriveAll(model, [back])[0]?.status).toBe(200);
        },
      ),
      { numRuns: 300, seed: 1 },
    );
  });

  it('countsRefused: a client that keeps sending over the limit stays refused', () => {
    // 20/s against 10 a second, for five seconds.
    const times = evenly(100, 0, 50);
    const counting = arriveAll(new SlidingCounterModel({ rate: 10, countsRefused: true }), times);
    const forgiving = arriveAll(new SlidingCounterModel({ rate: 10, countsRefused: false }), times);
    const servedIn = (replies: typeof counting, from: number, to: number) =>
      times.filter((at, i) => at >= from && at < to && replies[i]?.status === 200).length;
    expect(servedIn(counting, 0, 1000)).toBe(10);
    expect(servedIn(forgiving, 0, 1000)).toBe(10);
    // Counting its refusals, every later window starts 20 deep: nothing is served again.
    expect(servedIn(counting, 1000, 5000)).toBe(0);
    // Not counting them, it is back in the next window and served about the limit each second.
    expect(servedIn(forgiving, 1000, 2000)).toBeGreaterThan(0);
    expect(servedIn(forgiving, 1000, 5000)).toBeGreaterThanOrEqual(4 * 10 - 4);
    expect(servedIn(forgiving, 1000, 5000)).toBeLessThanOrEqual(4 * 10);
  });

  it('countsRefused: stopping for two windows clears the count', () => {
    const model = new SlidingCounterModel({ rate: 10, countsRefused: true });
    arriveAll(model, evenly(60, 0, 50)); // three seconds at 20/s: refused since 1000
    expect(arriveAll(model, [3500])[0]?.status).toBe(429); // prev window 20, weighs 10
    expect(arriveAll(model, [5000])[0]?.status).toBe(200);
  });

  it('starts its windows at phaseMs', () => {
    const atPhase = (phaseMs: number) => {
      const model = new SlidingCounterModel({ rate: 10, phaseMs });
      arriveAll(model, evenly(10, 900, 0));
      return countStatuses(arriveAll(model, evenly(8, 1500, 0)))[200];
    };
    // Windows [0, 1000): at 1500 the ten weigh 5, five more fit.
    expect(atPhase(0)).toBe(5);
    // Windows [400, 1400), [1400, 2400): at 1500 they weigh 9, one more fits.
    expect(atPhase(400)).toBe(1);
    // Windows [700, 1700): at 1500 they are this window's: none fits.
    expect(atPhase(700)).toBeUndefined();
  });

  it('keeps one counter per client with scope client', () => {
    const model = new SlidingCounterModel({ rate: 1, scope: 'client' });
    const next = requests();
    const statuses = [next(0, 'a'), next(0, 'b'), next(10, 'a')].map((r) => model.arrive(r).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('needs one request per window, and reports the rate as capacity', () => {
    expect(() => new SlidingCounterModel({ rate: 0.05, windowMs: 10_000 })).toThrow(
      /SlidingCounterModel: option `rate` must be at least one request per window/,
    );
    expect(() => new SlidingCounterModel({ phaseMs: -1 })).toThrow(/option `phaseMs`/);
    expect(new SlidingCounterModel({ rate: 0.2, windowMs: 60_000 }).capacity(0)).toBe(0.2);
  });
});
