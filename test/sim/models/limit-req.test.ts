import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LimitReqModel } from '../../../src/sim/models/limit-req.js';
import { arriveAll, countStatuses, evenly, requests } from './arrivals.js';

describe('LimitReqModel', () => {
  it('nodelay: admits burst + 1 back to back, then refuses with 503 and no Retry-After', () => {
    const model = new LimitReqModel({ rate: 10, burst: 4, delay: Infinity, latencyMs: 100 });
    const replies = arriveAll(model, evenly(8, 0, 0));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 503, 503, 503]);
    // nodelay: every admitted request is served after the latency alone.
    expect(replies.slice(0, 5).map((r) => r.ttfbMs)).toEqual([100, 100, 100, 100, 100]);
    expect(replies[5]?.headers['retry-after']).toBeUndefined();
    expect(replies[5]?.ttfbMs).toBe(0);
  });

  it('refuses with the configured status, and a Retry-After only when asked for one', () => {
    const quiet = new LimitReqModel({ rate: 10, delay: Infinity, status: 429 });
    expect(arriveAll(quiet, [0, 0]).map((r) => r.status)).toEqual([200, 429]);
    const telling = new LimitReqModel({
      rate: 2,
      burst: 1,
      delay: Infinity,
      retryAfter: 'seconds',
    });
    const [, , third] = arriveAll(telling, [0, 0, 0]);
    expect(third?.status).toBe(503);
    // Excess 2 over a burst of 1 drains in 1 / 2 s: rounded up, 1 s.
    expect(third?.headers['retry-after']).toBe('1');
  });

  it('burst 0: spacing of at least 1/rate is always admitted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 100 }),
        (rate, extra) => {
          const gap = Math.ceil(1000 / rate);
          const model = new LimitReqModel({ rate, delay: Infinity });
          let at = 0;
          const times = extra.map((e) => (at += gap + e));
          expect(countStatuses(arriveAll(model, times))[503]).toBeUndefined();
        },
      ),
    );
  });

  it('burst 0: a request closer than 1/rate to the last admitted one is refused', () => {
    const model = new LimitReqModel({ rate: 10, delay: Infinity });
    const replies = arriveAll(model, [0, 99, 100, 150, 199, 200, 310, 400, 409, 410]);
    // 99 ms after an admitted request 0.01 of it is still in the bucket: over a burst of 0.
    expect(replies.map((r) => r.status)).toEqual([
      200, 503, 200, 503, 503, 200, 200, 503, 503, 200,
    ]);
  });

  it('refusals leave the bucket as it was', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 120 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { maxLength: 120 }),
        (rawA, rawB) => {
          const times = [...rawA, ...rawB].sort((a, b) => a - b);
          const options = { rate: 5, burst: 3, delay: 1, latencyMs: 0 };
          const all = arriveAll(new LimitReqModel(options), times);
          // The same arrivals without the refused ones get exactly the same replies.
          const admitted = times.filter((_, i) => all[i]?.status === 200);
          const again = arriveAll(new LimitReqModel(options), admitted);
          expect(again.map((r) => [r.status, r.ttfbMs])).toEqual(
            all.filter((r) => r.status === 200).map((r) => [r.status, r.ttfbMs]),
          );
        },
      ),
    );
  });

  it('delays admitted excess by excess / rate (nginx without nodelay, the default)', () => {
    const model = new LimitReqModel({ rate: 10, burst: 5, latencyMs: 0, jitterMs: 0 });
    const replies = arriveAll(model, evenly(7, 0, 0));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 503]);
    // Each request queued behind another waits one more 1/rate = 100 ms before its first byte.
    expect(replies.slice(0, 6).map((r) => r.ttfbMs)).toEqual([0, 100, 200, 300, 400, 500]);
  });

  it('adds the delay on top of the latency and shrinks it as the bucket drains', () => {
    const model = new LimitReqModel({ rate: 4, burst: 10, latencyMs: 50 });
    const replies = arriveAll(model, [0, 0, 0, 500]);
    // Excess 0, 1, 2 at t=0 (250 ms per request); by 500 two have drained: excess 1.
    expect(replies.map((r) => r.ttfbMs)).toEqual([50, 300, 550, 300]);
  });

  it('delay=N serves the first N excess requests at once and delays the rest', () => {
    const model = new LimitReqModel({ rate: 10, burst: 5, delay: 2, latencyMs: 0 });
    const replies = arriveAll(model, evenly(7, 0, 0));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 503]);
    expect(replies.slice(0, 6).map((r) => r.ttfbMs)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('keeps one bucket per client with scope client', () => {
    const model = new LimitReqModel({ rate: 1, delay: Infinity, scope: 'client' });
    const next = requests();
    const statuses = [next(0, 'a'), next(0, 'b'), next(10, 'a'), next(10, 'c')].map(
      (r) => model.arrive(r).status,
    );
    expect(statuses).toEqual([200, 200, 503, 200]);
  });

  it('reports its rate as capacity, on a schedule', () => {
    const model = new LimitReqModel({
      rate: [
        { fromMs: 0, rate: 10 },
        { fromMs: 1000, rate: 2 },
      ],
    });
    expect(model.capacity(0)).toBe(10);
    expect(model.capacity(1500)).toBe(2);
    expect(new LimitReqModel().capacity(0)).toBe(10);
  });

  it.each([
    [{ burst: -1 }, /LimitReqModel: option `burst` must be a number >= 0, got -1/],
    [{ delay: -1 }, /LimitReqModel: option `delay` must be a number >= 0 \(or Infinity\)/],
    [{ status: 200 }, /LimitReqModel: option `status` must be an integer >= 400 and <= 599/],
    [{ status: 503.5 }, /option `status`/],
    [{ rate: 0 }, /LimitReqModel: option `rate` must be a rate > 0/],
    [{ retryAfter: 'soon' }, /LimitReqModel: option `retryAfter` must be one of/],
    [{ nodelay: true }, /LimitReqModel: unknown option `nodelay`/],
  ])('rejects %o with an error naming the option', (options, message) => {
    expect(() => new LimitReqModel(options as never)).toThrow(message);
  });
});
