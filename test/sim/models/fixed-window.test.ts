import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../../src/errors.js';
import { FixedWindowModel } from '../../../src/sim/models/fixed-window.js';
import { arriveAll, countStatuses, evenly, requests, WALL_START } from './arrivals.js';

describe('FixedWindowModel', () => {
  it('admits exactly 30 in a window after 350 ms, then 429s at once with Retry-After: 1', () => {
    const replies = arriveAll(new FixedWindowModel(), evenly(40, 0, 10));
    expect(countStatuses(replies)).toEqual({ 200: 30, 429: 10 });
    expect(replies.slice(0, 30).every((r) => r.ttfbMs === 350)).toBe(true);
    const rejected = replies[30];
    expect(rejected?.status).toBe(429);
    expect(rejected?.ttfbMs).toBe(0);
    expect(rejected?.headers['retry-after']).toBe('1');
  });

  it('starts a window at the first arrival after the previous one expired', () => {
    const model = new FixedWindowModel({ rate: 2 });
    // Window [100, 1100): two admitted, third rejected; 1099 still inside; 1100 opens a new one.
    const replies = arriveAll(model, [100, 200, 300, 1099, 1100, 1101, 1102, 2500]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429, 429, 200, 200, 429, 200]);
  });

  it('does not spend the window on rejections', () => {
    const model = new FixedWindowModel({ rate: 1, windowMs: 1000 });
    expect(arriveAll(model, [0, 10, 20, 999, 1000]).map((r) => r.status)).toEqual([
      200, 429, 429, 429, 200,
    ]);
  });

  it('keeps one budget per client with scope "client"', () => {
    const model = new FixedWindowModel({ rate: 1, scope: 'client' });
    const next = requests();
    expect(model.arrive(next(0, 'a')).status).toBe(200);
    expect(model.arrive(next(1, 'b')).status).toBe(200);
    expect(model.arrive(next(2, 'a')).status).toBe(429);
  });

  it('follows a capacity schedule: 30 → 10 → 40 req/s', () => {
    const rate = [
      { fromMs: 0, rate: 30 },
      { fromMs: 10_000, rate: 10 },
      { fromMs: 20_000, rate: 40 },
    ];
    const model = new FixedWindowModel({ rate });
    const admitted = (from: number) =>
      countStatuses(arriveAll(model, evenly(100, from, 5)))[200] ?? 0;
    expect(admitted(0)).toBe(30);
    expect(admitted(10_000)).toBe(10);
    expect(admitted(20_000)).toBe(40);
    expect([model.capacity(5000), model.capacity(15_000), model.capacity(25_000)]).toEqual([
      30, 10, 40,
    ]);
  });

  it('states Retry-After in every form', () => {
    const reject = (retryAfter: 'seconds' | 'http-date' | 'zero' | 'none') =>
      arriveAll(new FixedWindowModel({ rate: 1, retryAfter }), [0, 200])[1]?.headers;
    expect(reject('seconds')?.['retry-after']).toBe('1');
    // Window ends at model time 1000 → wall WALL_START + 1000, an exact second.
    expect(reject('http-date')?.['retry-after']).toBe(new Date(WALL_START + 1000).toUTCString());
    expect(reject('http-date')?.['retry-after']).toMatch(/^\w{3}, \d{2} \w{3} \d{4} 00:00:01 GMT$/);
    expect(reject('zero')?.['retry-after']).toBe('0');
    expect(reject('none')).not.toHaveProperty('retry-after');
  });

  it('never serves more than the limit in a window, nor twice it in any sliding span', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 300 }), (raw) => {
        const times = [...raw].sort((a, b) => a - b);
        const replies = arriveAll(new FixedWindowModel({ rate: 5 }), times);
        const served = times.filter((_, i) => replies[i]?.status === 200);
        for (const t of served) {
          expect(served.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(10);
        }
      }),
    );
  });

  it('rejects bad options with errors naming option and value', () => {
    expect(() => new FixedWindowModel({ rate: 0 })).toThrow(/`rate`.*got 0 \(number\)/);
    expect(() => new FixedWindowModel({ windowMs: -1 })).toThrow(/`windowMs`/);
    expect(() => new FixedWindowModel({ retryAfter: 'soon' as never })).toThrow(/"soon"/);
    expect(() => new FixedWindowModel({ rate: [{ fromMs: 5, rate: 1 }] })).toThrow(/fromMs 0/);
    expect(() => new FixedWindowModel({ windowMS: 5 } as never)).toThrow(InvalidOptionError);
  });
});

describe('FixedWindowModel options', () => {
  it('refuses a rate that admits less than one request per window, naming the fix', () => {
    expect(() => new FixedWindowModel({ rate: 0.5 })).toThrow(
      /rate.*at least one request per window.*longer windowMs/,
    );
    expect(() => new FixedWindowModel({ rate: 0.5, windowMs: 2000 })).not.toThrow();
  });
});
