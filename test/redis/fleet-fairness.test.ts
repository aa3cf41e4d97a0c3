import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { OK, pause, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('fleet admission is fair between workers', () => {
  it('a worker with one caller gets slots beside a worker with eight that could keep them all', async () => {
    const setup = { maxConcurrency: 4, initialConcurrency: 4 };
    // Per-request leases only (a rate lease is the share of a worker that has a window's worth).
    const perRequest = { rateLeaseMinRequests: 1_000_000 };
    const busy = redis.registry(await redis.fleet(perRequest), setup);
    const modest = redis.registry(await redis.fleet(perRequest), setup);
    const done = { busy: 0, modest: 0 };
    const end = performance.now() + 1500;
    const lane = async (registry: typeof busy, who: keyof typeof done) => {
      while (performance.now() < end) {
        const permit = await registry.admit('host:fair');
        await pause(20);
        permit.report(OK);
        done[who]++;
      }
    };
    await Promise.all([
      ...Array.from({ length: 8 }, () => lane(busy, 'busy')),
      lane(modest, 'modest'),
    ]);
    // Its fair part is 2 of the 4 slots and it asks for 1 at a time: about a third of the
    // requests. Ending and re-leasing in one call, the busy worker would keep all 4.
    expect(done.modest).toBeGreaterThan(done.busy / 6);
  });

  it('a waiting worker that dies caps the others no longer than it is seen live', async () => {
    const fleet = await redis.fleet({ rateLeaseMinRequests: 1_000_000 });
    const registry = redis.registry(fleet, { maxConcurrency: 4, initialConcurrency: 4 });
    (await registry.admit('host:ghost')).report(OK);
    // A worker queued for a slot whose last call was 4.7 s ago (liveness: 2 lease times from
    // it), dead since: it counts as waiting for 300 ms more (a lease time from its last call).
    const keys = scopeKeys('rw', 'host:ghost');
    const [seconds, micros] = (await fleet.link.command(undefined, ['TIME'])) as string[];
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    await fleet.link.command(keys.workers, ['ZADD', keys.workers, String(nowMs + 5300), 'ghost']);
    await fleet.link.command(keys.waiting, ['ZADD', keys.waiting, String(nowMs * 1000), 'ghost']);
    // Four callers on a window of 4: two at once (its fair part beside the ghost), the other
    // two once the ghost is gone — not a lease time (5 s) later.
    const permits = await Promise.all(
      Array.from({ length: 4 }, () => registry.admit('host:ghost', { timeoutMs: 2500 })),
    );
    for (const permit of permits) permit.report(OK);
    expect(permits).toHaveLength(4);
  });
});
