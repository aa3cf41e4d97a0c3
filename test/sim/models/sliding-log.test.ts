import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingLogModel } from '../../../src/sim/models/sliding-log.js';
import { arriveAll, countStatuses, evenly } from './arrivals.js';

describe('SlidingLogModel', () => {
  it('admits the limit in any window and 429s the rest with the time until a slot frees', () => {
    const model = new SlidingLogModel({ rate: 3, latencyMs: 100 });
    const replies = arriveAll(model, [0, 100, 200, 300, 999, 1000, 1050, 1150]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 200, 429, 200]);
    expect(replies[0]?.ttfbMs).toBe(100);
    // At 300 the oldest (0) frees at 1000: 700 ms → 1 s; at 1050, 100 frees at 1100.
    expect(replies[3]?.headers['retry-after']).toBe('1');
    expect(replies[6]?.headers['retry-after']).toBe('1');
  });

  it('states the exact wait as an HTTP-date rounded up to the second', () => {
    const model = new SlidingLogModel({ rate: 0.2, windowMs: 5000, retryAfter: 'http-date' });
    const [, rejected] = arriveAll(model, [0, 1200]);
    expect(rejected?.headers['retry-after']).toMatch(/ 00:00:05 GMT$/);
  });

  it('waits for enough of the log to expire after the rate drops', () => {
    const model = new SlidingLogModel({
      rate: [
        { fromMs: 0, rate: 4 },
        { fromMs: 500, rate: 2 },
      ],
      windowMs: 1000,
    });
    const replies = arriveAll(model, [0, 100, 200, 300, 600, 1150, 1250]);
    // Four served before 500; at 600 the limit is 2 with 4 logged: the third-oldest (200)
    // must expire first, at 1200. At 1150 (0 and 100 gone) still 2 logged → 429.
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429, 200]);
  });

  it('never serves more than the limit in any window of windowMs', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 300 }), (raw) => {
        const times = [...raw].sort((a, b) => a - b);
        const replies = arriveAll(new SlidingLogModel({ rate: 5 }), times);
        const served = times.filter((_, i) => replies[i]?.status === 200);
        for (const t of served) {
          expect(served.filter((s) => s > t - 1000 && s <= t).length).toBeLessThanOrEqual(5);
        }
      }),
    );
  });

  it('serves a steady stream at exactly its capacity without rejections', () => {
    const replies = arriveAll(new SlidingLogModel({ rate: 10 }), evenly(200, 0, 100));
    expect(countStatuses(replies)).toEqual({ 200: 200 });
  });
});
