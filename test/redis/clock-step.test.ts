import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { readFleetStatus } from '../../src/redis/status.js';
import { OK, pause, REFUSED, stateOf, useRedis } from './fleet-helpers.js';

const redis = useRedis();
const HOUR_US = 3_600_000_000;

describe('Redis’s wall clock set back', () => {
  it('holds no worker: the scope’s clock carries on from its last reading', async () => {
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet, { maxConcurrency: 2, initialConcurrency: 2, rate: 10 });
    const keys = scopeKeys('rw', 'host:step');
    (await registry.admit('host:step')).report(OK);
    await pause(100); // the request's end reaches Redis
    // The scope as a clock one hour ahead left it: its schedule booked to then, a dead
    // worker's lease expiring 5 s after then. Now the clock reads an hour earlier.
    const [seconds, micros] = (await fleet.link.command(undefined, ['TIME'])) as string[];
    const then = Number(seconds) * 1_000_000 + Number(micros) + HOUR_US;
    await fleet.link.command(keys.state, [
      'HSET',
      keys.state,
      'clk',
      String(then),
      'tat',
      String(then),
    ]);
    const dead = String(Math.floor(then / 1000) + 5000);
    await fleet.link.command(keys.leases, ['ZADD', keys.leases, dead, 'gone#1']);
    // Both slots' worth of requests go at the scope's rate, not an hour later.
    for (let i = 0; i < 3; i++)
      (await registry.admit('host:step', { timeoutMs: 3000, maxPauseWaitMs: 0 })).report(OK);
    const after = await stateOf(fleet, keys.state);
    expect(Number(after.clk)).toBeGreaterThanOrEqual(then);
    expect(Number(after.clkoff)).toBeGreaterThan(HOUR_US - 60_000_000);
    // A Retry-After now pauses on the scope's clock (the worker's estimate of it followed the step).
    (await registry.admit('host:step')).report({ ...REFUSED, retryAfterMs: 300 });
    await pause(100);
    const paused = await stateOf(fleet, keys.state);
    expect(Number(paused.pause)).toBeGreaterThan(Number(paused.clk) / 1000);
    // The dead lease still counts for its 5 s of the scope's clock (not for an hour, nor none).
    const [status] = (await readFleetStatus(fleet.link)).filter((s) => s.scope === 'host:step');
    expect(status?.inflight).toEqual({ gone: 1 });
  });
});
