import { describe, expect, it } from 'vitest';
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
});
