import { describe, expect, it } from 'vitest';
import { PenaltyBoxModel } from '../../../src/sim/models/penalty-box.js';
import { arriveAll, countStatuses, evenly, requests } from './arrivals.js';

describe('PenaltyBoxModel', () => {
  it('refuses nothing while a client stays under the limit', () => {
    // 8/s against 10 a second, for a minute, across window boundaries.
    const model = new PenaltyBoxModel({ rate: 10, blockMs: 60_000, latencyMs: 20 });
    const replies = arriveAll(model, evenly(480, 0, 125));
    expect(countStatuses(replies)).toEqual({ 200: 480 });
    expect(replies[0]?.ttfbMs).toBe(20);
  });

  it('blocks the client for blockMs from the first request over the limit', () => {
    const model = new PenaltyBoxModel({ rate: 10, blockMs: 5000 });
    const first = arriveAll(model, evenly(11, 0, 0));
    expect(countStatuses(first)).toEqual({ 200: 10, 429: 1 });
    expect(first[10]?.headers['retry-after']).toBe('5');
    // Everything in the block is refused, with the time left, whatever the counter says.
    const during = arriveAll(model, [100, 1000, 2000, 2500, 4001, 4999]);
    expect(during.map((r) => r.status)).toEqual([429, 429, 429, 429, 429, 429]);
    expect(during.map((r) => r.headers['retry-after'])).toEqual(['5', '4', '3', '3', '1', '1']);
    // Then it is admitted again: the block's refusals did not count.
    expect(countStatuses(arriveAll(model, evenly(10, 5000, 0)))).toEqual({ 200: 10 });
  });

  it('states the block as an HTTP-date of its end', () => {
    const model = new PenaltyBoxModel({ rate: 1, blockMs: 30_000, retryAfter: 'http-date' });
    const [, blocked, later] = arriveAll(model, [0, 500, 10_000]);
    expect(blocked?.headers['retry-after']).toBe('Thu, 01 Jan 2026 00:00:31 GMT');
    expect(later?.headers['retry-after']).toBe('Thu, 01 Jan 2026 00:00:31 GMT');
    expect(arriveAll(model, [30_499])[0]?.status).toBe(429);
    expect(arriveAll(model, [30_500])[0]?.status).toBe(200);
  });

  it('blocks only the client that went over with scope client', () => {
    const model = new PenaltyBoxModel({ rate: 1, blockMs: 10_000, scope: 'client' });
    const next = requests();
    const statuses = [next(0, 'a'), next(1, 'a'), next(2, 'b'), next(5000, 'a'), next(5000, 'b')];
    expect(statuses.map((r) => model.arrive(r).status)).toEqual([200, 429, 200, 429, 200]);
  });

  it('counts with a sliding window counter: the previous window weighs in', () => {
    const model = new PenaltyBoxModel({ rate: 10, blockMs: 1000 });
    arriveAll(model, evenly(10, 0, 0));
    // At 1500 the ten weigh 5: five more fit, the sixth is over and blocks until 2500.
    const half = arriveAll(model, evenly(6, 1500, 0));
    expect(countStatuses(half)).toEqual({ 200: 5, 429: 1 });
    expect(arriveAll(model, [2499])[0]?.status).toBe(429);
    expect(arriveAll(model, [2500])[0]?.status).toBe(200);
  });

  it('reports the rate as capacity and rejects a negative block', () => {
    expect(new PenaltyBoxModel({ rate: 3 }).capacity(0)).toBe(3);
    expect(() => new PenaltyBoxModel({ blockMs: -1 })).toThrow(
      /PenaltyBoxModel: option `blockMs` must be a number >= 0/,
    );
  });
});
