import { describe, expect, it } from 'vitest';
import { ByteDripModel } from '../../../src/sim/models/byte-drip.js';
import { combine } from '../../../src/sim/models/combine.js';
import { ConcurrencyCapModel } from '../../../src/sim/models/concurrency-cap.js';
import { FixedWindowModel } from '../../../src/sim/models/fixed-window.js';
import { PacingRampModel } from '../../../src/sim/models/pacing-ramp.js';
import { QuotaModel } from '../../../src/sim/models/quota.js';
import { arriveAll, evenly, requests } from './arrivals.js';

describe('combine', () => {
  it('takes admission from a fixed window and latency from a ramp', () => {
    const model = combine(
      new FixedWindowModel({ rate: 150, latencyMs: 0 }),
      new PacingRampModel({ latencyMs: 200 }),
    );
    expect(model.name).toBe('fixed-window+ramp');
    const replies = arriveAll(model, evenly(160, 0, 1));
    expect(replies[98]).toMatchObject({ status: 200, ttfbMs: 200 });
    expect(replies[99]).toMatchObject({ status: 200, ttfbMs: 240 });
    expect(replies[150]).toMatchObject({ status: 429, ttfbMs: 0 });
    expect(replies[150]?.headers['retry-after']).toBe('1');
    // The rejected requests never reached the ramp: request 151 of the next window is its 151st.
    const next = requests();
    expect(model.arrive(next(1000)).ttfbMs).toBe(240);
  });

  it('delays rejections too when the ramp comes first', () => {
    const model = combine(
      new PacingRampModel({ latencyMs: 10 }),
      new FixedWindowModel({ rate: 1 }),
    );
    const [served, rejected] = arriveAll(model, [0, 1]);
    expect(served).toMatchObject({ status: 200, ttfbMs: 360 });
    expect(rejected).toMatchObject({ status: 429, ttfbMs: 10, body: 'Too Many Requests' });
  });

  it('merges headers and keeps the largest body with its drip time', () => {
    const model = combine(
      new QuotaModel({ limit: 5, latencyMs: 0 }),
      new ByteDripModel({ rate: 0, bodyBytes: 1000, bytesPerSecond: 1000, latencyMs: 50 }),
    );
    const [reply] = arriveAll(model, [0]);
    expect(reply).toMatchObject({ status: 200, ttfbMs: 50, bodyBytes: 1000, bodyMs: 1000 });
    expect(reply?.body).toBeUndefined();
    expect(reply?.headers['x-ratelimit-remaining']).toBe('4');
    expect(reply?.headers['content-type']).toBe('application/octet-stream');
    expect(model.capacity(0)).toBe((1 / 60) * 5);
  });

  it('calls finish only on the layers the request reached', () => {
    const front = new ConcurrencyCapModel({ limit: 1 });
    const back = new ConcurrencyCapModel({ limit: 5 });
    const model = combine(front, back);
    const next = requests();
    const served = next(0);
    const rejected = next(1);
    model.arrive(served);
    expect(model.arrive(rejected).status).toBe(503);
    expect([front.inFlight, back.inFlight]).toEqual([1, 1]);
    model.finish?.(rejected, 2);
    expect([front.inFlight, back.inFlight]).toEqual([1, 1]);
    model.finish?.(served, 3);
    expect([front.inFlight, back.inFlight]).toEqual([0, 0]);
    expect(model.capacity(0)).toBe((1000 * 1) / 350);
  });

  it('needs at least one model', () => {
    expect(() => combine()).toThrow(/`layers` must be at least one model/);
    expect(() => combine({} as never)).toThrow(/`layers\[0\]` must be a ServerModel/);
  });
});
