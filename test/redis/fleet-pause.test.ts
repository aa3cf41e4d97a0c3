import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { ScopeCalls } from '../../src/redis/scope-calls.js';
import { OK, pause, REFUSED, stateOf, useRedis } from './fleet-helpers.js';

const redis = useRedis();

/** Redis's clock, ms. */
async function redisNow(fleet: Awaited<ReturnType<typeof redis.fleet>>): Promise<number> {
  const [seconds, micros] = (await fleet.link.command(undefined, ['TIME'])) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('a Retry-After pause across the fleet', () => {
  it('counts from when the response arrived, not from when its report reached Redis', async () => {
    const fleet = await redis.fleet();
    const keys = scopeKeys('rw', 'host:late-report');
    const calls = new ScopeCalls(fleet, keys, 'host:late-report', ['4', '0']);
    const report = { retryAfterMs: 1000, congestion: false, epoch: 0, outcome: '' };
    const arrived = (await redisNow(fleet)) - 300; // a busy worker reports 300 ms late
    await calls.end('', { ...report, receivedAt: arrived });
    expect(Number((await stateOf(fleet, keys.state)).pause)).toBe(arrived + 1000);
    // A time ahead of Redis's (a bad estimate) counts as now: a pause is never made longer.
    const before = await redisNow(fleet);
    const ahead = scopeKeys('rw', 'host:ahead');
    await new ScopeCalls(fleet, ahead, 'host:ahead', ['4', '0']).end('', {
      ...report,
      receivedAt: before + 60_000,
    });
    const paused = Number((await stateOf(fleet, ahead.state)).pause);
    expect(paused).toBeGreaterThanOrEqual(before + 1000);
    expect(paused).toBeLessThanOrEqual((await redisNow(fleet)) + 1000);
  });

  it('a worker waiting out a pause holds a lease from its end, taken during it', async () => {
    const [a, b] = [await redis.fleet(), await redis.fleet()];
    const [ra, rb] = [redis.registry(a), redis.registry(b)];
    const keys = scopeKeys('rw', 'host:resume');
    (await rb.admit('host:resume')).report(OK); // b hears of the scope before the pause
    const permit = await ra.admit('host:resume');
    permit.report({ ...REFUSED, retryAfterMs: 600 });
    const reported = performance.now();
    await pause(50); // the release reaches Redis and its announcement reaches b
    const admitted = rb.admit('host:resume');
    await pause(200);
    // Mid-pause, b already holds a lease whose send time is the pause's end (it expires a
    // lease time after it): it sends as the pause ends, not a round trip after.
    const { pause: until } = await stateOf(b, keys.state);
    const reply = await b.link.command(keys.leases, [
      'ZRANGE',
      keys.leases,
      '0',
      '-1',
      'WITHSCORES',
    ]);
    const leases = (reply as unknown[]).flat(); // RESP3 pairs or RESP2 flat
    expect(leases).toHaveLength(2);
    expect(Number(leases[1])).toBeGreaterThanOrEqual(Number(until) + b.settings.leaseMs);
    (await admitted).report(OK);
    expect(performance.now() - reported).toBeGreaterThanOrEqual(560);
  });

  it('holds and is held by a worker running alone while Redis answers again', async () => {
    // a: a renewal period of 20 s, so once local it stays local for this test.
    const a = await redis.fleet({ leaseMs: 60_000, callTimeoutMs: 100 });
    const b = await redis.fleet();
    const [ra, rb] = [redis.registry(a), redis.registry(b)];
    (await ra.admit('host:alone')).report(OK);
    redis.server().freeze();
    try {
      while (a.shared) (await ra.admit('host:alone')).report(OK);
    } finally {
      redis.server().thaw();
    }
    await pause(100); // Redis works off what came in while frozen
    expect(a.shared).toBe(false);
    // a, alone, is told Retry-After: the fleet (b) is held.
    (await rb.admit('host:alone')).report(OK);
    (await ra.admit('host:alone')).report({ ...REFUSED, retryAfterMs: 500 });
    let reported = performance.now();
    await pause(50); // the report reaches Redis
    (await rb.admit('host:alone')).report(OK);
    expect(performance.now() - reported).toBeGreaterThanOrEqual(460);
    // a opens a scope alone; b is told Retry-After on it: a hears the pause and holds.
    (await ra.admit('host:alone-later')).report(OK);
    await pause(100); // a's subscription to the scope
    (await rb.admit('host:alone-later')).report({ ...REFUSED, retryAfterMs: 500 });
    reported = performance.now();
    await pause(50);
    (await ra.admit('host:alone-later')).report(OK);
    expect(performance.now() - reported).toBeGreaterThanOrEqual(460);
    expect(a.shared).toBe(false);
  });
});
