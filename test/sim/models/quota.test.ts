import { describe, expect, it } from 'vitest';
import { QuotaModel } from '../../../src/sim/models/quota.js';
import { arriveAll, evenly, requests, WALL_START } from './arrivals.js';

describe('QuotaModel', () => {
  it('counts remaining down on every response and 429s only once the quota is spent', () => {
    const model = new QuotaModel({ limit: 3, windowMs: 10_000 });
    const replies = arriveAll(model, [0, 1000, 2000, 2500, 9000]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual([
      '2',
      '1',
      '0',
      '0',
      '0',
    ]);
    expect(replies.map((r) => r.headers['x-ratelimit-reset'])).toEqual(['10', '9', '8', '8', '1']);
    expect(replies.every((r) => r.headers['x-ratelimit-limit'] === '3')).toBe(true);
    expect(replies[3]?.headers['retry-after']).toBe('8');
    expect(replies[3]?.ttfbMs).toBe(0);
    expect(replies[0]?.ttfbMs).toBe(200);
  });

  it('resets at the window boundary', () => {
    const model = new QuotaModel({ limit: 2, windowMs: 1000 });
    const replies = arriveAll(model, [0, 1, 2, 1000, 1001]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429, 200, 200]);
    expect(replies[3]?.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('publishes IETF RateLimit and RateLimit-Policy structured fields', () => {
    const model = new QuotaModel({ limit: 100, windowMs: 60_000, headers: 'ietf' });
    const [reply] = arriveAll(model, [30_000]);
    expect(reply?.headers['ratelimit-policy']).toBe('"default";q=100;w=60');
    expect(reply?.headers.ratelimit).toBe('"default";r=99;t=30');
    expect(reply?.headers).not.toHaveProperty('x-ratelimit-limit');
  });

  it('writes an epoch reset when asked, and only the X- family when asked', () => {
    const model = new QuotaModel({
      limit: 5,
      windowMs: 60_000,
      resetForm: 'epoch',
      headers: 'x-ratelimit',
    });
    const [reply] = arriveAll(model, [15_500]);
    expect(reply?.headers['x-ratelimit-reset']).toBe(String((WALL_START + 60_000) / 1000));
    expect(reply?.headers).not.toHaveProperty('ratelimit');
  });

  it('keeps a quota per client with scope "client", and reports limit / window', () => {
    const model = new QuotaModel({ limit: 1, scope: 'client' });
    const next = requests();
    expect(model.arrive(next(0, 'key-a')).status).toBe(200);
    expect(model.arrive(next(0, 'key-b')).status).toBe(200);
    expect(model.arrive(next(0, 'key-a')).status).toBe(429);
    expect(new QuotaModel({ limit: 60, windowMs: 60_000 }).capacity()).toBe(1);
    expect(arriveAll(new QuotaModel({ limit: 120 }), evenly(120, 0, 10)).at(-1)?.status).toBe(200);
  });
});
