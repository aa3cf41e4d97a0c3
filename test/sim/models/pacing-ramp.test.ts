import { describe, expect, it } from 'vitest';
import { PacingRampModel } from '../../../src/sim/models/pacing-ramp.js';
import { arriveAll, evenly, requests } from './arrivals.js';

describe('PacingRampModel', () => {
  it('adds 40 ms per 100 requests from a client, never an error', () => {
    const replies = arriveAll(new PacingRampModel(), evenly(450, 0, 10));
    const ttfb = (n: number) => replies[n - 1]?.ttfbMs;
    expect([ttfb(1), ttfb(99), ttfb(100), ttfb(199), ttfb(200), ttfb(450)]).toEqual([
      200, 200, 240, 240, 280, 360,
    ]);
    expect(replies.every((r) => r.status === 200)).toBe(true);
  });

  it('caps the extra delay at 3 s', () => {
    const replies = arriveAll(new PacingRampModel({ latencyMs: 0 }), evenly(10_000, 0, 1));
    expect(replies.at(7499)?.ttfbMs).toBe(3000);
    expect(replies.at(-1)?.ttfbMs).toBe(3000);
    expect(Math.max(...replies.map((r) => r.ttfbMs))).toBe(3000);
  });

  it('ramps each client separately: a fresh IP is fast again', () => {
    const model = new PacingRampModel({ latencyMs: 0 });
    arriveAll(model, evenly(300, 0, 1), 'ip-a');
    const next = requests();
    expect(model.arrive(next(400, 'ip-a')).ttfbMs).toBe(120);
    expect(model.arrive(next(400, 'ip-b')).ttfbMs).toBe(0);
  });

  it('decays: with a window, only recent requests count, so slowing down helps', () => {
    const model = new PacingRampModel({ latencyMs: 0, windowMs: 60_000 });
    expect(model.name).toBe('decaying-ramp');
    const fast = arriveAll(model, evenly(500, 0, 100)); // 500 requests in 50 s
    expect(fast.at(-1)?.ttfbMs).toBe(200);
    const next = requests();
    // 40 s later only the requests of the last minute (from t = 30 s on) still count.
    expect(model.arrive(next(90_000)).ttfbMs).toBe(80);
    // After a quiet minute, the client is back to no delay.
    expect(model.arrive(next(160_000)).ttfbMs).toBe(0);
    expect(model.capacity()).toBeUndefined();
  });

  it('validates its options', () => {
    expect(() => new PacingRampModel({ stepRequests: 0 })).toThrow(/`stepRequests`/);
    expect(() => new PacingRampModel({ windowMs: 0 })).toThrow(/`windowMs`.*Infinity/);
  });
});
