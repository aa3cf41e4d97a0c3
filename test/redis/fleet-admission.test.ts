import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import type { Permit } from '../../src/controller/permit.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnFrom } from '../../src/redis/learn-step.js';
import { OK, pause, REFUSED, stateOf, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('fleet admission on a real Redis', () => {
  it('three workers together never hold more than the shared window', async () => {
    const registries = await Promise.all(
      [1, 2, 3].map(async () =>
        redis.registry(await redis.fleet(), { maxConcurrency: 4, initialConcurrency: 4 }),
      ),
    );
    let inflight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 36 }, async (_, i) => {
        const permit = await (registries[i % 3] as (typeof registries)[0]).admit('host:window');
        most = Math.max(most, ++inflight);
        await pause(5);
        inflight--;
        permit.report(OK);
      }),
    );
    expect(most).toBe(4); // filled, never exceeded (three local controllers would allow 12)
  });

  it('paces three workers on one schedule: together at the scope rate, not three times it', async () => {
    const registries = await Promise.all(
      [1, 2, 3].map(async () => redis.registry(await redis.fleet(), { rate: 100 })),
    );
    const sends: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const permit = await (registries[i % 3] as (typeof registries)[0]).admit('host:paced');
        sends.push(performance.now());
        permit.report(OK);
      }),
    );
    sends.sort((a, b) => a - b);
    const span = (sends.at(-1) as number) - (sends[0] as number);
    expect(span).toBeGreaterThan(29 * 10 * 0.9); // 29 gaps of 10 ms, whichever worker sent
  });

  it('a Retry-After received by one worker holds every worker', async () => {
    const fleet = await redis.fleet();
    const [a, b] = [redis.registry(await redis.fleet()), redis.registry(fleet)] as const;
    (await b.admit('host:pause')).report(OK); // b knows the scope before the pause
    const permit = await a.admit('host:pause');
    permit.report({ ...REFUSED, retryAfterMs: 400 });
    const reported = performance.now();
    const state = scopeKeys('rw', 'host:pause').state;
    // The release reached Redis (the pause is there for b to find).
    await until(async () => Number((await stateOf(fleet, state)).pause) > 0);
    (await b.admit('host:pause')).report(OK);
    expect(performance.now() - reported).toBeGreaterThanOrEqual(380);
  });

  it('a burst of refusals admitted under one epoch cuts once, fleet-wide', async () => {
    const fleets = [await redis.fleet(), await redis.fleet()];
    const registries = fleets.map((fleet) =>
      redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 }),
    );
    const permits: Permit[] = [];
    for (let i = 0; i < 8; i++)
      permits.push(await (registries[i % 2] as (typeof registries)[0]).admit('host:burst'));
    for (const permit of permits) permit.report(REFUSED);
    const fleet = fleets[0] as (typeof fleets)[0];
    const keys = scopeKeys('rw', 'host:burst');
    // Every release came, and the learner's step (once the cut settled: another worker is live).
    await until(async () => {
      const leases = Number(await fleet.link.command(keys.leases, ['ZCARD', keys.leases]));
      return leases === 0 && Number((await stateOf(fleet, keys.state)).ver) > 0;
    });
    const state = await stateOf(fleet, keys.state);
    expect(state.ep).toBe('1');
    const oneCut = learnFrom(
      controlSetup({ maxConcurrency: 8, initialConcurrency: 8 }),
      'host:burst',
      '',
      [
        { s: 1, a: 2, i: 8, g: REFUSED },
        { s: 1, a: 3, i: 1, g: REFUSED },
      ],
      2,
    );
    // A burst refused down to one in flight is the rate's, not a cap's: the window stays,
    // the pace is learned — once for the whole burst (epoch 1).
    expect(Number(state.win)).toBe(oneCut.window);
    expect(oneCut.window).toBe(8);
    expect(Number(state.rate)).toBeGreaterThan(0);
    expect(oneCut.rate).toBeLessThan(Infinity);
  });

  it('a bare 503 leaves the epoch to the refusal that follows it', async () => {
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
    const noisy = await registry.admit('host:noise');
    const refused = await registry.admit('host:noise');
    const keys = scopeKeys('rw', 'host:noise');
    const leases = async () =>
      Number(await fleet.link.command(keys.leases, ['ZCARD', keys.leases]));
    noisy.report({ kind: 'overloaded', reason: '503', status: 503 });
    await until(async () => (await leases()) === 1); // the 503's end reached Redis first
    refused.report(REFUSED);
    // The 429's end, and the learner's step that learns it.
    await until(
      async () => (await leases()) === 0 && Number((await stateOf(fleet, keys.state)).rate) > 0,
    );
    // Both were admitted under epoch 0: the 429 still claims it, the 503 did not.
    const state = await stateOf(fleet, keys.state);
    expect(state.ep).toBe('1');
    // The learner took the 503 as noise (the window holds) and the 429 as the rate's.
    expect(state.win).toBe('8');
    expect(Number(state.rate)).toBeGreaterThan(0);
  });

  it('gives a dead worker’s slots back when their leases expire', async () => {
    const dying = await redis.fleet({ leaseMs: 300 });
    const held = await redis.registry(dying, { maxConcurrency: 2, initialConcurrency: 2 });
    await held.admit('host:lease');
    await held.admit('host:lease');
    await held.close(); // stops renewing, like a killed worker; the leases stay in Redis
    const leases = scopeKeys('rw', 'host:lease').leases;
    const expiries = async () => {
      const reply = await dying.link.command(leases, ['ZRANGE', leases, '0', '-1', 'WITHSCORES']);
      const flat = (reply as unknown[]).flat(); // RESP2 flat, RESP3 pairs
      return flat.flatMap((id, i) => (i % 2 === 0 ? [[String(id), Number(flat[i + 1])]] : []));
    };
    const firstExpiry = Math.min(...(await expiries()).map(([, at]) => at as number)); // Redis ms
    const fleet = await redis.fleet({ leaseMs: 300 });
    const survivor = redis.registry(fleet, { maxConcurrency: 2, initialConcurrency: 2 });
    const started = performance.now();
    const permit = await survivor.admit('host:lease');
    const waited = performance.now() - started;
    // Its lease expires 300 ms after Redis granted it (renewals only push that later).
    const mine = (await expiries()).find(([id]) =>
      String(id).startsWith(`${fleet.settings.workerId}#`),
    );
    const grantedAt = Number(mine?.[1]) - 300;
    permit.report(OK);
    expect(grantedAt).toBeGreaterThanOrEqual(firstExpiry); // not before a dead lease expired
    expect(waited).toBeLessThan(300 + 1000);
  });

  it('a worker granted part of what its callers need gets the rest as a dead worker’s leases expire, not a lease time later', async () => {
    const dying = await redis.fleet({ leaseMs: 300 });
    const held = redis.registry(dying, { maxConcurrency: 4, initialConcurrency: 4 });
    await held.admit('host:partly');
    await held.admit('host:partly');
    await held.close(); // 2 of the window's 4 stay leased in Redis until they expire
    // Its own leases last 5 s: a freed slot would wake it, an expired one does not.
    const survivor = redis.registry(await redis.fleet({ leaseMs: 5000 }), {
      maxConcurrency: 4,
      initialConcurrency: 4,
    });
    const started = performance.now();
    const permits = await Promise.all(
      Array.from({ length: 4 }, () => survivor.admit('host:partly')),
    );
    const waited = performance.now() - started;
    for (const permit of permits) permit.report(OK);
    expect(waited).toBeLessThan(300 + 1500); // before: 5 s, asleep until a wake-up or its lease time
  });
});
