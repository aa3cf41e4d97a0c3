import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, until, useRedis } from './fleet-helpers.js';
import { watchStalls } from './stalls.js';

const redis = useRedis();

/** The rate every worker's controller starts at; the learner lock is held elsewhere, so it stays. */
const RATE = 20;

/**
 * The most admissions a second of real time from `from` may hold at `RATE`: one more than
 * the rate, one for jitter, and what a stall of this process ending in it packs there (the
 * sends due while it stood still, all let go at its end).
 */
function mostInSecond(from: number, stalledIn: (from: number, to: number) => number): number {
  return RATE + 2 + Math.ceil((RATE * stalledIn(from, from + 1000)) / 1000);
}

/** A fleet that would lease a share after 2 requests in a renewal period (`leaseMs / 3`). */
function leasing(leaseMs: number): Promise<RedisFleet> {
  return redis.fleet({ leaseMs, rateLeaseMinRequests: 2 });
}

/** Runs `lanes` callers of `fleet` on `scope` until `running()` is false, each admission's time (ms) kept in `times`. */
function lanesOf(
  fleet: RedisFleet,
  scope: string,
  lanes: number,
  running: () => boolean,
  times: number[],
): Promise<unknown> {
  const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8, rate: RATE });
  return Promise.all(
    Array.from({ length: lanes }, async () => {
      while (running()) {
        const permit = await registry.admit(scope);
        times.push(performance.now());
        await pause(5);
        permit.report(OK);
      }
    }),
  );
}

/** The shares of `scope` that lease a rate now (their leased rate > 0). */
async function pacingShares(fleet: RedisFleet, scope: string): Promise<number> {
  const keys = scopeKeys('rw', scope);
  const shares = (await fleet.link.command(keys.shares, ['HVALS', keys.shares])) as string[];
  return shares.filter((share) => Number(share.split(' ')[0]) > 0).length;
}

/** Another worker holds the learning lock: the fleet's rate stays where the controllers start it. */
async function holdLearner(fleet: RedisFleet, scope: string): Promise<void> {
  const keys = scopeKeys('rw', scope);
  await fleet.link.command(keys.learner, ['SET', keys.learner, 'w-other', 'PX', '60000']);
}

describe('rate leases on a paced scope keep to one schedule', () => {
  it('two busy workers on a paced scope send on the shared schedule: neither leases the rate (two pacers send out of phase)', async () => {
    const scope = 'host:paced-two';
    const stalls = watchStalls();
    const [a, b] = [await leasing(600), await leasing(600)]; // renewals every 200 ms
    await holdLearner(a, scope);
    let running = true;
    const timesA: number[] = [];
    const timesB: number[] = [];
    const driving = [lanesOf(a, scope, 8, () => running, timesA)];
    driving.push(lanesOf(b, scope, 8, () => running, timesB));
    // Both on the scope (a share the first took before the second came is given up at once).
    await until(async () => timesA.length > 0 && timesB.length > 0, 10_000);
    await pause(300);
    let most = 0;
    const since = performance.now();
    while (performance.now() - since < 2000) {
      most = Math.max(most, await pacingShares(a, scope));
      await pause(20);
    }
    running = false;
    await Promise.all(driving);
    stalls.stop();
    expect(Math.min(timesA.length, timesB.length)).toBeGreaterThan(10); // many per renewal period each
    expect(most).toBe(0); // before: both leased half the rate, each paced by its own timer
    // One schedule at 20 req/s: at most one more than the rate in any second (and one for
    // jitter), and those a stall of this process let go at once.
    const times = [...timesA, ...timesB].sort((x, y) => x - y);
    const over = times
      .map((t, i) => ({ t, n: times.filter((u, j) => j >= i && u < t + 1000).length }))
      .filter(({ t, n }) => n > mostInSecond(t, stalls.stalledIn));
    expect(over.map(({ n }) => n)).toEqual([]);
  }, 30_000);

  it('a worker alone leases its pace and gives it up when another asks: the newcomer is admitted on the shared schedule, not after the share runs out', async () => {
    const scope = 'host:paced-join';
    const leaseMs = 3000; // renewals every second, a share held 3 s
    const stalls = watchStalls();
    const alone = await leasing(leaseMs);
    await holdLearner(alone, scope);
    let running = true;
    const aloneTimes: number[] = [];
    const driving = lanesOf(alone, scope, 4, () => running, aloneTimes);
    await until(async () => (await pacingShares(alone, scope)) > 0, 10_000);
    expect(await pacingShares(alone, scope)).toBe(1); // alone, it paces its share itself
    const newcomer = await leasing(leaseMs);
    const registry = redis.registry(newcomer, {
      maxConcurrency: 8,
      initialConcurrency: 8,
      rate: RATE,
    });
    const asked = performance.now();
    const admittedAt: number[] = [];
    for (let i = 0; i < 3; i++) {
      const permit = await registry.admit(scope, { timeoutMs: 2 * leaseMs });
      admittedAt.push(performance.now() - asked);
      await pause(5);
      permit.report(OK);
    }
    const shares = await pacingShares(alone, scope);
    running = false;
    await driving;
    stalls.stop();
    const seen = `newcomer admitted at ${admittedAt.map(Math.round).join(', ')} ms`;
    expect(admittedAt[2], seen).toBeLessThan(leaseMs);
    // Given up: both on the shared schedule. Before, the share stayed (halved at its renewal)
    // and its timer paced half the rate out of phase with the newcomer's bookings.
    expect(shares, seen).toBe(0);
    // The fleet kept about its rate meanwhile: the newcomer did not send beside the share.
    const from = asked;
    const sent = aloneTimes.filter((t) => t >= from && t < from + 1000).length;
    const newcomerSent = admittedAt.filter((t) => t < 1000).length;
    expect(sent + newcomerSent, seen).toBeLessThanOrEqual(mostInSecond(from, stalls.stalledIn));
  }, 30_000);
});
