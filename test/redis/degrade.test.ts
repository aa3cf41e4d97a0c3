import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import type { ControlEvent } from '../../src/events/event.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { OK, pause, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('a fleet worker when Redis goes away', () => {
  it('runs on locally once Redis is silent for three call timeouts, says so, and rejoins once Redis answers', async () => {
    const fleet = await redis.fleet({ leaseMs: 600, callTimeoutMs: 100 }); // retry every 200 ms
    const events: ControlEvent[] = [];
    const registry = fleet.registry({
      setup: controlSetup({ maxConcurrency: 8, initialConcurrency: 8 }),
      events: (event) => events.push(event),
    });
    (await registry.admit('host:down')).report(OK);
    redis.server().freeze(); // connections stay open, nothing answers
    try {
      const started = performance.now();
      for (let i = 0; i < 5; i++) (await registry.admit('host:down')).report(OK);
      expect(performance.now() - started).toBeLessThan(600); // calls timed out for 300 ms, then local
      expect(fleet.shared).toBe(false);
      expect(events.filter((e) => e.type === 'fleet').map((e) => e.reason)).toEqual([
        expect.stringMatching(/^local: Redis unreachable/),
      ]);
      expect(redis.lines.some((line) => line.includes('running locally'))).toBe(true);
    } finally {
      redis.server().thaw();
    }
    const back = performance.now();
    while (!fleet.shared && performance.now() - back < 2000) await pause(10);
    expect(performance.now() - back).toBeLessThan(2 * 200 + 300); // two renewal periods, and slack for a loaded machine
    expect(events.at(-1)?.reason).toMatch(/^shared: /);
    (await registry.admit('host:down')).report(OK);
    await registry.close();
  });

  it('stays shared while Redis is slow but answering (late replies are Redis still there)', async () => {
    const fleet = await redis.fleet({ leaseMs: 3000, callTimeoutMs: 300 });
    const other = await redis.fleet();
    const registry = fleet.registry({ setup: controlSetup() });
    (await registry.admit('host:slow')).report(OK);
    // Redis busy for 700 ms at a time: two calls in a row time out (at 300 and 600 ms), their
    // replies come late (at 700 ms), before Redis has been silent for three call timeouts.
    const busy = `local t0 = redis.call('TIME')
      repeat local t = redis.call('TIME')
      until (t[1] - t0[1]) * 1000000 + t[2] - t0[2] >= 700000
      return 1`;
    for (let i = 0; i < 4; i++) {
      const blocked = other.link.command(undefined, ['EVAL', busy, '0']);
      await pause(5);
      (await registry.admit('host:slow')).report(OK);
      await blocked;
    }
    expect(fleet.shared).toBe(true);
    const mine = redis.lines.filter((line) => line.includes(`(${fleet.settings.workerId})`));
    expect(mine).toEqual([expect.stringMatching(/joined the fleet/)]);
    await registry.close();
  });

  it("gives a late reply's lease to the caller still waiting (not one lease per call timeout)", async () => {
    const fleet = await redis.fleet({ leaseMs: 3000, callTimeoutMs: 100 });
    const other = await redis.fleet();
    const registry = fleet.registry({ setup: controlSetup() });
    const leases = scopeKeys('rw', 'host:late').leases;
    const held = async () =>
      (await fleet.link.command(leases, ['ZRANGE', leases, '0', '-1'])) as string[];
    (await registry.admit('host:late')).report(OK); // lease #1
    await until(async () => (await held()).length === 0, 2000);
    // Redis busy for 250 ms: the next acquire (lease #2) times out at 100 ms and its reply comes
    // late, with the retry's (lease #3) — before Redis has been silent for three call timeouts.
    const busy = `local t0 = redis.call('TIME')
      repeat local t = redis.call('TIME')
      until (t[1] - t0[1]) * 1000000 + t[2] - t0[2] >= 250000
      return 1`;
    const blocked = other.link.command(undefined, ['EVAL', busy, '0']);
    await pause(5);
    const started = performance.now();
    const permit = await registry.admit('host:late');
    expect(performance.now() - started).toBeGreaterThan(100); // the first call did time out
    await blocked;
    await until(async () => (await held()).length === 1, 2000);
    expect(await held()).toEqual([`${fleet.settings.workerId}#2`]); // the late one, in use
    expect(fleet.shared).toBe(true);
    permit.report(OK);
    await registry.close();
  });

  it('stays shared when the worker itself was held with Redis past three call timeouts (a descheduled machine)', async () => {
    const fleet = await redis.fleet({ leaseMs: 3000, callTimeoutMs: 100 });
    const registry = fleet.registry({ setup: controlSetup() });
    const scopes = ['host:held-a', 'host:held-b'];
    for (const scope of scopes) (await registry.admit(scope)).report(OK);
    redis.server().freeze();
    let thawed = false;
    try {
      const sent = fleet.roundTrips;
      const admitted = scopes.map((scope) => registry.admit(scope));
      while (fleet.roundTrips < sent + 2) await pause(1); // one acquire per scope, unanswered
      // The machine holds the worker 600 ms (its event loop blocked), and Redis with it, which
      // answers only 50 ms after the worker runs again: both calls time out, on a late timer.
      const until = performance.now() + 600;
      while (performance.now() < until);
      setTimeout(() => {
        redis.server().thaw();
        thawed = true;
      }, 50);
      for (const permit of await Promise.all(admitted)) permit.report(OK);
      expect(fleet.shared).toBe(true);
      const mine = redis.lines.filter((line) => line.includes(`(${fleet.settings.workerId})`));
      expect(mine).toEqual([expect.stringMatching(/joined the fleet/)]);
    } finally {
      if (!thawed) redis.server().thaw();
    }
    await registry.close();
  });

  it('keeps admitting while the server is stopped and restarted empty', async () => {
    const fleet = await redis.fleet({ leaseMs: 600, callTimeoutMs: 100 });
    const registry = fleet.registry({ setup: controlSetup() });
    (await registry.admit('host:restart')).report(OK);
    await redis.server().stop();
    for (let i = 0; i < 5; i++) (await registry.admit('host:restart')).report(OK);
    expect(fleet.shared).toBe(false);
    await redis.server().start();
    const back = performance.now();
    while (!fleet.shared && performance.now() - back < 3000) await pause(10);
    expect(fleet.shared).toBe(true);
    (await registry.admit('host:restart')).report(OK);
    await registry.close();
  });

  it('leases the requests it admitted alone once Redis is back, so the window counts them', async () => {
    const fleet = await redis.fleet({ leaseMs: 600, callTimeoutMs: 100 });
    const registry = fleet.registry({ setup: controlSetup() });
    const leases = scopeKeys('rw', 'host:adopt').leases;
    const held = async () => Number(await fleet.link.command(leases, ['ZCARD', leases]));
    (await registry.admit('host:adopt')).report(OK);
    redis.server().freeze();
    let alone: Awaited<ReturnType<typeof registry.admit>>;
    try {
      alone = await registry.admit('host:adopt');
      expect(fleet.shared).toBe(false);
    } finally {
      redis.server().thaw();
    }
    while (!fleet.shared) await pause(10);
    await pause(50); // the adoption call
    expect(await held()).toBe(1);
    alone.report(OK);
    await pause(50);
    expect(await held()).toBe(0);
    await registry.close();
  });

  it('sends a request granted alone but still waiting when Redis is back through the fleet', async () => {
    const fleet = await redis.fleet({ leaseMs: 600, callTimeoutMs: 100 });
    const registry = fleet.registry({
      setup: controlSetup({ maxConcurrency: 1, initialConcurrency: 1 }),
    });
    const leases = scopeKeys('rw', 'host:requeue').leases;
    const held = async () => Number(await fleet.link.command(leases, ['ZCARD', leases]));
    (await registry.admit('host:requeue')).report(OK);
    redis.server().freeze();
    let first: Awaited<ReturnType<typeof registry.admit>>;
    let second: Promise<Awaited<ReturnType<typeof registry.admit>>>;
    try {
      first = await registry.admit('host:requeue'); // alone, sent
      second = registry.admit('host:requeue'); // alone, waiting for the local slot
      await pause(20);
    } finally {
      redis.server().thaw();
    }
    while (!fleet.shared) await pause(10);
    let admitted = false;
    void second.then(() => {
      admitted = true;
    });
    await pause(100);
    expect(await held()).toBe(1); // the first, adopted; the second waits in the fleet's queue
    expect(admitted).toBe(false);
    first.report(OK);
    (await second).report(OK);
    expect(admitted).toBe(true);
    await pause(50);
    expect(await held()).toBe(0);
    await registry.close();
  });
});
