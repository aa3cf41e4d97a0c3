import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucketModel } from '../../../src/sim/models/token-bucket.js';
import { arriveAll, countStatuses, evenly } from './arrivals.js';

describe('TokenBucketModel', () => {
  it('serves a burst back to back, then 429s until tokens refill', () => {
    const model = new TokenBucketModel({ rate: 10, burst: 5 });
    const burst = arriveAll(model, evenly(8, 0, 0));
    expect(countStatuses(burst)).toEqual({ 200: 5, 429: 3 });
    expect(burst[5]?.headers['retry-after']).toBe('1');
    expect(burst[0]?.ttfbMs).toBe(350);
  });

  it('refills at the rate: one token per 100 ms at 10/s', () => {
    const model = new TokenBucketModel({ rate: 10, burst: 1, retryAfter: 'zero' });
    const replies = arriveAll(model, [0, 50, 100, 150, 199, 200]);
    expect(replies.map((r) => r.status)).toEqual([200, 429, 200, 429, 429, 200]);
    expect(replies[1]?.headers['retry-after']).toBe('0');
  });

  it('integrates a rate schedule across its steps', () => {
    const model = new TokenBucketModel({
      rate: [
        { fromMs: 0, rate: 10 },
        { fromMs: 1000, rate: 1 },
      ],
      burst: 100,
    });
    arriveAll(model, evenly(100, 0, 0)); // empty the bucket at t=0
    // Over [0, 2000]: 10 tokens in the first second, 1 in the next.
    expect(countStatuses(arriveAll(model, evenly(20, 2000, 0)))).toEqual({ 200: 11, 429: 9 });
  });

  it('serves at most burst + rate × time over any run', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 300 }), (raw) => {
        const times = [...raw].sort((a, b) => a - b);
        const served = countStatuses(arriveAll(new TokenBucketModel({ rate: 4, burst: 3 }), times));
        const span = times.length > 0 ? (times.at(-1) as number) - (times[0] as number) : 0;
        expect(served[200] ?? 0).toBeLessThanOrEqual(3 + (4 * span) / 1000 + 1e-9);
      }),
    );
  });
});
