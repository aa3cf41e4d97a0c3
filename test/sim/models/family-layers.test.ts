import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/random.js';
import { BackgroundModel } from '../../../src/sim/models/background.js';
import { FixedWindowModel } from '../../../src/sim/models/fixed-window.js';
import { GcraModel } from '../../../src/sim/models/gcra.js';
import { NoiseModel } from '../../../src/sim/models/noise.js';
import { RefusalFormModel } from '../../../src/sim/models/refusal-form.js';
import { SkewedClockModel } from '../../../src/sim/models/skewed-clock.js';
import { arriveAll, evenly, WALL_START } from './arrivals.js';

const statuses = (replies: { status: number }[]) => replies.map((reply) => reply.status);
const served = (replies: { status: number }[]) => replies.filter((r) => r.status === 200).length;

describe('GcraModel', () => {
  it('lets a burst through, then one per emission interval', () => {
    const model = new GcraModel({ rate: 10, burst: 2, latencyMs: 0 });
    // burst 2 on top of the sustained rate: three back to back, the fourth refused
    expect(statuses(arriveAll(model, [0, 0, 0, 0]))).toEqual([200, 200, 200, 429]);
    const steady = new GcraModel({ rate: 10, burst: 0, latencyMs: 0 });
    expect(served(arriveAll(steady, evenly(50, 0, 100)))).toBe(50);
    expect(served(arriveAll(new GcraModel({ rate: 10, burst: 0 }), evenly(50, 0, 50)))).toBe(25);
  });

  it('states the time until the request would conform', () => {
    const model = new GcraModel({ rate: 1, burst: 0, latencyMs: 0 });
    const [, refused] = arriveAll(model, [0, 200]);
    expect(refused?.headers['retry-after']).toBe('1');
  });
});

describe('BackgroundModel', () => {
  it('takes its share of a shared limit while active, and none outside', () => {
    const inner = new FixedWindowModel({ rate: 20, aligned: true, latencyMs: 0 });
    const model = new BackgroundModel(inner, {
      share: 0.5,
      active: [{ fromMs: 0, toMs: 10_000 }],
    });
    // at our half (10/s) we are served in full while it is on; at 20/s, after it, too
    const replies = arriveAll(model, [...evenly(100, 0, 100), ...evenly(200, 10_000, 50)]);
    expect(served(replies.slice(0, 100))).toBeGreaterThanOrEqual(95);
    expect(served(replies.slice(100))).toBe(200);
    // sending the whole capacity while it is on: first come, first served, so short of 20/s
    const greedy = new BackgroundModel(new FixedWindowModel({ rate: 20, latencyMs: 0 }), {
      share: 0.5,
      active: [{ fromMs: 0, toMs: 10_000 }],
    });
    expect(served(arriveAll(greedy, evenly(200, 0, 50)))).toBeLessThan(150);
    expect(model.capacity(5000)).toBe(10);
    expect(model.capacity(15_000)).toBe(20);
  });
});

describe('NoiseModel', () => {
  it('fails about the given share of requests with unrelated 5xx, marked as its own', () => {
    const inner = new GcraModel({ rate: 1e6, burst: 1e6, latencyMs: 0 });
    const model = new NoiseModel(inner, {
      probability: 0.05,
      latencyMs: 10,
      random: seededRandom(3),
    });
    const replies = arriveAll(model, evenly(4000, 0, 1));
    const noisy = replies.filter((reply) => model.isNoise(reply));
    expect(noisy.length).toBeGreaterThan(150);
    expect(noisy.length).toBeLessThan(250);
    expect(new Set(noisy.map((r) => r.status))).toEqual(new Set([500, 502, 503, 504]));
    expect(replies.filter((r) => r.status !== 200).length).toBe(noisy.length);
  });
});

describe('RefusalFormModel and SkewedClockModel', () => {
  it('rewrites refusals as 503 with a constant Retry-After, leaving successes alone', () => {
    const inner = new FixedWindowModel({ rate: 1, latencyMs: 0 });
    const model = new RefusalFormModel(inner, { status: 503, retryAfterS: 4 });
    const [ok, refused] = arriveAll(model, [0, 10]);
    expect(ok?.status).toBe(200);
    expect(refused?.status).toBe(503);
    expect(refused?.headers['retry-after']).toBe('4');
  });

  it('states its own Date and HTTP-dates in its own (skewed) time', () => {
    const inner = new FixedWindowModel({ rate: 1, latencyMs: 0, retryAfter: 'http-date' });
    const model = new SkewedClockModel(inner, 30_000);
    const [, refused] = arriveAll(model, [0, 10]);
    const date = Date.parse(refused?.headers.date ?? '');
    expect(date - WALL_START).toBe(30_000);
    const retryAt = Date.parse(refused?.headers['retry-after'] ?? '');
    expect(retryAt - date).toBe(1000); // the real wait, in the server's clock
  });
});

describe('FixedWindowModel aligned', () => {
  it('starts windows on the clock rather than at the first arrival', () => {
    const aligned = new FixedWindowModel({ rate: 2, windowMs: 1000, aligned: true, latencyMs: 0 });
    // 900 and 1000 fall in different clock windows: both served
    expect(statuses(arriveAll(aligned, [900, 950, 1000, 1050, 1100]))).toEqual([
      200, 200, 200, 200, 429,
    ]);
    const drifting = new FixedWindowModel({ rate: 2, windowMs: 1000, latencyMs: 0 });
    expect(statuses(arriveAll(drifting, [900, 950, 1000]))).toEqual([200, 200, 429]);
    expect(() => new FixedWindowModel({ aligned: 'yes' as never })).toThrow(/aligned/);
  });
});
