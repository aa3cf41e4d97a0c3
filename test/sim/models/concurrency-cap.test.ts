import { describe, expect, it } from 'vitest';
import { ConcurrencyCapModel } from '../../../src/sim/models/concurrency-cap.js';
import { requests } from './arrivals.js';

describe('ConcurrencyCapModel', () => {
  it('503s the N+1th overlapping request and admits again once one finishes', () => {
    const model = new ConcurrencyCapModel({ limit: 3, latencyMs: 100 });
    const next = requests();
    const first = [next(0), next(1), next(2)];
    expect(first.map((r) => model.arrive(r).status)).toEqual([200, 200, 200]);
    expect(model.inFlight).toBe(3);
    const fourth = model.arrive(next(3));
    expect(fourth.status).toBe(503);
    expect(fourth.ttfbMs).toBe(0);
    expect(fourth.headers).not.toHaveProperty('retry-after');
    model.finish(first[1] as never);
    expect(model.inFlight).toBe(2);
    expect(model.arrive(next(101)).status).toBe(200);
  });

  it('does not count rejected requests as in flight when they finish', () => {
    const model = new ConcurrencyCapModel({ limit: 1 });
    const next = requests();
    const served = next(0);
    model.arrive(served);
    const rejected = next(1);
    expect(model.arrive(rejected).status).toBe(503);
    model.finish(rejected);
    expect(model.inFlight).toBe(1);
    model.finish(served);
    expect(model.inFlight).toBe(0);
  });

  it('uses the configured status and Retry-After, and reports Little-law capacity', () => {
    const model = new ConcurrencyCapModel({ limit: 1, status: 429, retryAfter: 'seconds' });
    const next = requests();
    model.arrive(next(0));
    const rejected = model.arrive(next(1));
    expect(rejected.status).toBe(429);
    expect(rejected.headers['retry-after']).toBe('1');
    expect(new ConcurrencyCapModel({ limit: 10, latencyMs: 200 }).capacity()).toBe(50);
    expect(new ConcurrencyCapModel({ latencyMs: 0 }).capacity()).toBeUndefined();
    expect(() => new ConcurrencyCapModel({ status: 200 })).toThrow(/`status`.*>= 400/);
  });
});
