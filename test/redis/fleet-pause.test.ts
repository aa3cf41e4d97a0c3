import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnFrom, parseOutcomes } from '../../src/redis/learn-step.js';
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

  it('ends where the learner, hearing the same Retry-After, ends it (the same rounding, the same arrival)', async () => {
    const fleet = await redis.fleet();
    const now = await redisNow(fleet);
    // Dated by a worker's clock estimate: a fraction of a ms, or (a bad estimate) ahead of Redis.
    for (const [name, arrived] of [
      ['host:fraction', now - 20.4],
      ['host:estimate-ahead', now + 5_000.4],
    ] as const) {
      const keys = scopeKeys('rw', name);
      const signal = { ...REFUSED, retryAfterMs: 1000 };
      const outcome = JSON.stringify({ s: arrived - 30, a: arrived, i: 1, g: signal });
      const report = { retryAfterMs: 1000, receivedAt: arrived, congestion: true, epoch: 0 };
      await new ScopeCalls(fleet, keys, name, ['4', '0']).end('', { ...report, outcome });
      const state = await stateOf(fleet, keys.state);
      const queued = await fleet.link.command(keys.samples, ['LRANGE', keys.samples, '0', '-1']);
      const learned = learnFrom(controlSetup(), name, '', parseOutcomes(queued as unknown[]), now);
      expect(learned.pauseUntil).toBe(Number(state.pause));
    }
  });

  it('a worker waiting out a pause holds a lease from its end, taken during it', async () => {
    const [a, b] = [await redis.fleet(), await redis.fleet()];
    const [ra, rb] = [redis.registry(a), redis.registry(b)];
    const keys = scopeKeys('rw', 'host:resume');
    (await rb.admit('host:resume')).report(OK); // b hears of the scope before the pause
    const permit = await ra.admit('host:resume');
    permit.report({ ...REFUSED, retryAfterMs: 600 });
    const reported = performance.now();
    while ((await stateOf(b, keys.state)).pause === undefined) await pause(5); // the report is in
    const admitted = rb.admit('host:resume');
    // b takes a lease during the pause whose send time is the pause's end (it expires a lease
    // time after it): it sends as the pause ends, not a round trip after. The learner, which
    // hears the same Retry-After, leaves that end where it is.
    const lease = `${b.settings.workerId}#2`; // b's first ended with it at the latest
    const expiry = async () =>
      (await b.link.command(keys.leases, ['ZSCORE', keys.leases, lease])) as string | null;
    while ((await expiry()) === null) await pause(5);
    await pause(300); // time for the learner's step
    const { pause: until } = await stateOf(b, keys.state);
    expect(await b.link.command(keys.leases, ['ZCARD', keys.leases])).toBe(1);
    expect(Number(await expiry())).toBeGreaterThanOrEqual(Number(until) + b.settings.leaseMs);
    (await admitted).report(OK);
    expect(performance.now() - reported).toBeGreaterThanOrEqual(560);
  });

  it('books one lease for the end of a pause on an unpaced scope, however many workers ask during it', async () => {
    // Unpaced (no rate learned yet, as in a cold start), each lease booked during a pause got its
    // end, and the rate the learner set meanwhile moved none of them: four workers resumed with
    // four sends at once, and a window of 30 per second that the first opened refused the rate
    // held after them (the fleet bench's cold start, every 4- and 8-worker run). The others ask
    // again as the pause ends.
    const [a, b] = [await redis.fleet(), await redis.fleet()];
    const keys = scopeKeys('rw', 'host:unpaced-resume');
    const [callsA, callsB] = [a, b].map(
      (fleet) => new ScopeCalls(fleet, keys, 'host:unpaced-resume', ['8', '0']),
    ) as [ScopeCalls, ScopeCalls];
    const report = { retryAfterMs: 1000, congestion: false, epoch: 0, outcome: '' };
    await callsA.end('', { ...report, receivedAt: await redisNow(a) });
    const ask = { count: 4, first: 1, more: false, knownVersion: 0, held: 0, ends: [] };
    // Each lease's send time on Redis's clock, µs: the reply's now (whole ms) and the lease's wait.
    const sendTimes = (reply: unknown[]) =>
      (reply[11] as unknown[]).map((wait) => Number(reply[2]) * 1000 + Number(wait));
    const booked: number[] = [];
    for (const calls of [callsA, callsB, callsA, callsB]) {
      booked.push(...sendTimes(await calls.acquire(ask, () => undefined)));
    }
    expect(booked).toHaveLength(1);
    const pauseEnd = booked[0] ?? 0;
    expect(pauseEnd - (await redisNow(a)) * 1000).toBeGreaterThan(700_000); // the pause's end
    // The learner's first rate comes during the pause: the schedule starts after that booking.
    await a.link.command(keys.state, ['HSET', keys.state, 'rate', '20']);
    const [first = 0, second = 0] = sendTimes(await callsB.acquire(ask, () => undefined));
    expect(first - pauseEnd).toBeGreaterThan(45_000); // one interval (50 ms) on (±1 ms of rounding)
    expect(second - first).toBeCloseTo(50_000, -3);
  });

  it('announces a pause its learner decides (a refusal without Retry-After), as it does a Retry-After', async () => {
    const [a, watcher] = [await redis.fleet(), await redis.fleet()];
    const keys = scopeKeys('rw', 'host:learned-pause');
    const heard: string[] = [];
    await watcher.link.subscribe(keys.channel, (message) => heard.push(message));
    (await redis.registry(a).admit('host:learned-pause')).report(REFUSED); // the algorithm pauses
    while ((await stateOf(a, keys.state)).pause === undefined) await pause(5);
    const { pause: until } = await stateOf(a, keys.state);
    while (!heard.some((m) => m.startsWith('p'))) await pause(5); // the test's timeout, if never
    expect(heard.find((m) => m.startsWith('p'))?.split(' ')[0]).toBe(`p${until}`);
  });

  it('a renewal pushes a lease forward, never back (one sent as a pause ends keeps its expiry)', async () => {
    const fleet = await redis.fleet();
    const keys = scopeKeys('rw', 'host:renew');
    const calls = new ScopeCalls(fleet, keys, 'host:renew', ['4', '0']);
    const now = await redisNow(fleet);
    const after = now + 4000 + fleet.settings.leaseMs; // sent as a pause ends 4 s on
    await fleet.link.command(keys.leases, ['ZADD', keys.leases, String(after), 'w#1']);
    // Ends 2 s on (the renewal comes before it, on a loaded machine too; 100 ms was not): pushed.
    await fleet.link.command(keys.leases, ['ZADD', keys.leases, String(now + 2000), 'w#2']);
    await calls.renew(['w#1', 'w#2']);
    expect(Number(await fleet.link.command(keys.leases, ['ZSCORE', keys.leases, 'w#1']))).toBe(
      after,
    );
    const renewed = await fleet.link.command(keys.leases, ['ZSCORE', keys.leases, 'w#2']);
    expect(Number(renewed)).toBeGreaterThanOrEqual(now + fleet.settings.leaseMs);
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
