import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LumpyBucketModel } from '../../../src/sim/models/lumpy-bucket.js';
import { arriveAll, countStatuses, evenly, requests } from './arrivals.js';

describe('LumpyBucketModel', () => {
  it('starts full: serves its burst back to back, then refuses until the next fill', () => {
    const model = new LumpyBucketModel({ rate: 10, burst: 25, latencyMs: 40 });
    const replies = arriveAll(model, evenly(27, 0, 0));
    expect(countStatuses(replies)).toEqual({ 200: 25, 429: 2 });
    expect(replies[0]?.ttfbMs).toBe(40);
    expect(replies[25]?.headers['retry-after']).toBe('1');
    expect(replies[25]?.ttfbMs).toBe(0);
    // No burst given: it holds one fill.
    expect(countStatuses(arriveAll(new LumpyBucketModel({ rate: 10 }), evenly(12)))).toEqual({
      200: 10,
      429: 2,
    });
  });

  it('adds a fill at each fill boundary (phaseMs + k × interval) and nothing between', () => {
    // 10 tokens every 10 s at 2.5 s, 12.5 s, …
    const model = new LumpyBucketModel({ rate: 1, fillIntervalMs: 10_000, phaseMs: 2500 });
    expect(countStatuses(arriveAll(model, evenly(10, 0, 0)))).toEqual({ 200: 10 });
    const before = arriveAll(model, [0, 1000, 2499]);
    expect(before.map((r) => r.status)).toEqual([429, 429, 429]);
    // The wait is the time to the next fill: 2.5 s, 1.5 s, 1 ms (in whole seconds, rounded up).
    expect(before.map((r) => r.headers['retry-after'])).toEqual(['3', '2', '1']);
    expect(countStatuses(arriveAll(model, evenly(12, 2500, 0)))).toEqual({ 200: 10, 429: 2 });
    const between = arriveAll(model, [2600, 7000, 12_499]);
    expect(between.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(between.map((r) => r.headers['retry-after'])).toEqual(['10', '6', '1']);
    expect(arriveAll(model, [12_500])[0]?.status).toBe(200);
  });

  it('never holds more than its burst, however long it idles', () => {
    const model = new LumpyBucketModel({ rate: 5, fillIntervalMs: 1000, burst: 12 });
    arriveAll(model, evenly(12, 0, 0));
    expect(countStatuses(arriveAll(model, evenly(20, 100_000, 0)))).toEqual({ 200: 12, 429: 8 });
    // Two fills after emptying it: 2 × 5, not the burst.
    expect(countStatuses(arriveAll(model, evenly(12, 102_000, 0)))).toEqual({ 200: 10, 429: 2 });
  });

  it('serves at most its burst plus a fill per boundary crossed over any run', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 999 }),
        (raw, phaseMs) => {
          const times = [...raw].sort((a, b) => a - b);
          const model = new LumpyBucketModel({ rate: 3, burst: 6, phaseMs });
          const replies = arriveAll(model, times);
          const served = times.filter((_, i) => replies[i]?.status === 200);
          for (const t of served) {
            const upTo = served.filter((s) => s <= t).length;
            const fills =
              Math.floor((t - phaseMs) / 1000) - Math.floor(((times[0] ?? 0) - phaseMs) / 1000);
            expect(upTo).toBeLessThanOrEqual(6 + 3 * fills);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('publishes X-RateLimit-Limit, -Remaining and -Reset on every reply', () => {
    const model = new LumpyBucketModel({
      rate: 1,
      fillIntervalMs: 10_000,
      burst: 20,
      publishes: true,
    });
    const replies = arriveAll(model, evenly(21, 2500, 0));
    expect(replies[0]?.headers).toMatchObject({
      'x-ratelimit-limit': '20',
      'x-ratelimit-remaining': '19',
      'x-ratelimit-reset': '8',
    });
    expect(replies[19]?.headers['x-ratelimit-remaining']).toBe('0');
    const refused = replies[20];
    expect(refused?.status).toBe(429);
    expect(refused?.headers).toMatchObject({
      'x-ratelimit-limit': '20',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '8',
      'retry-after': '8',
    });
    // After the fill at 10 s: ten tokens, one taken.
    const [after] = arriveAll(model, [10_000]);
    expect(after?.headers['x-ratelimit-remaining']).toBe('9');
    expect(after?.headers['x-ratelimit-reset']).toBe('10');
  });

  it('publishes nothing by default', () => {
    const [reply] = arriveAll(new LumpyBucketModel({ rate: 10 }), [0]);
    expect(Object.keys(reply?.headers ?? {}).filter((h) => h.startsWith('x-ratelimit'))).toEqual(
      [],
    );
  });

  it('keeps one bucket per client with scope client', () => {
    const model = new LumpyBucketModel({ rate: 1, scope: 'client' });
    const next = requests();
    const statuses = [next(0, 'a'), next(1, 'a'), next(2, 'b')].map((r) => model.arrive(r).status);
    expect(statuses).toEqual([200, 429, 200]);
  });

  it('reports capacity as whole tokens per fill over the interval', () => {
    expect(new LumpyBucketModel({ rate: 25 }).capacity(0)).toBe(25);
    expect(new LumpyBucketModel({ rate: 2.4 }).capacity(0)).toBe(2); // 2 tokens a second
    expect(new LumpyBucketModel({ rate: 37, fillIntervalMs: 100 }).capacity(0)).toBe(40); // 4 per 100 ms
    expect(new LumpyBucketModel({ rate: 3, fillIntervalMs: 100 }).capacity(0)).toBe(10); // at least 1 a fill
    expect(new LumpyBucketModel({ rate: 0.5, fillIntervalMs: 60_000 }).capacity(0)).toBe(0.5);
  });

  it.each([
    [{ fillIntervalMs: 0 }, /LumpyBucketModel: option `fillIntervalMs` must be a number >= 1/],
    [{ burst: 1.5 }, /LumpyBucketModel: option `burst` must be an integer >= 0/],
    [{ phaseMs: -1 }, /LumpyBucketModel: option `phaseMs`/],
  ])('rejects %o with an error naming the option', (options, message) => {
    expect(() => new LumpyBucketModel(options)).toThrow(message);
  });
});
