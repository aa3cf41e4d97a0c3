import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnReadScript } from '../../src/redis/lua/learn.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { LOCK_MS } from '../../src/redis/scope-calls.js';
import { OK, pause, stateOf, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();

/** Counts the learner's reads `fleet` sends. */
function countReads(fleet: RedisFleet): { reads: number } {
  const counted = { reads: 0 };
  const command = fleet.link.command.bind(fleet.link);
  fleet.link.command = (key, args) => {
    if (args[1] === learnReadScript.sha) counted.reads++;
    return command(key, args);
  };
  return counted;
}

/** Waits until the scope's learned state reaches `version` (10 s at most); returns the ms waited. */
async function learnedBy(fleet: RedisFleet, scope: string, version: number): Promise<number> {
  const started = performance.now();
  const key = scopeKeys('rw', scope).state;
  while (Number((await stateOf(fleet, key)).ver ?? 0) < version) {
    if (performance.now() - started > 10_000) throw new Error(`version ${version} never came`);
    await pause(20);
  }
  return performance.now() - started;
}

describe('the learner looks only while outcomes come', () => {
  it('a quiet scope costs no learner calls; the next outcome is learned when it comes', async () => {
    const fleet = await redis.fleet({ learnEveryMs: 100 });
    const registry = redis.registry(fleet);
    const counted = countReads(fleet);
    const scope = 'host:quiet';
    for (let i = 0; i < 3; i++) (await registry.admit(scope)).report(OK);
    await learnedBy(fleet, scope, 1);
    const samples = scopeKeys('rw', scope).samples;
    while (Number(await fleet.link.command(samples, ['LLEN', samples])) > 0) await pause(20);
    await pause(2500); // a look set before the last outcomes were learned has run
    const before = counted.reads;
    await pause(3000);
    // Before: empty looks every 2 s, eight of them before the lock was let go.
    expect(counted.reads - before).toBe(0);
    const { ver } = await stateOf(fleet, scopeKeys('rw', scope).state);
    (await registry.admit(scope)).report(OK); // the holder queues it and is told (its lock held)
    expect(await learnedBy(fleet, scope, Number(ver) + 1)).toBeLessThan(2500);
  });

  it('outcomes another worker queues are learned by the lock holder, which is told of them', async () => {
    const [holder, other] = [await redis.fleet({ learnEveryMs: 100 }), await redis.fleet()];
    const [a, b] = [redis.registry(holder), redis.registry(other)];
    const otherReads = countReads(other);
    const scope = 'host:told';
    (await a.admit(scope)).report(OK);
    await learnedBy(holder, scope, 1); // the holder learned and stopped looking
    await pause(300);
    for (let i = 0; i < 3; i++) (await b.admit(scope)).report(OK);
    expect(await learnedBy(holder, scope, 2)).toBeLessThan(2500);
    expect(otherReads.reads).toBe(0); // the lock stayed with the holder
  });

  it('outcomes answered within the batch time of a lock taken are learned in one step', async () => {
    // Two workers each end a request on a scope nobody learns: the first takes the lock, and
    // the second's outcome, queued a moment later, is learned in the same step (a scope
    // shared by workers answers several at once: one read and write, not one each).
    const options = { learnEveryMs: 2000 };
    const [a, b] = [await redis.fleet(options), await redis.fleet(options)];
    const [first, second] = [redis.registry(a), redis.registry(b)];
    const scope = 'host:together';
    const keys = scopeKeys('rw', scope);
    const [one, two] = [await first.admit(scope), await second.admit(scope)];
    one.report(OK);
    const holder = () => a.link.command(keys.learner, ['GET', keys.learner]);
    await until(async () => (await holder()) === a.settings.workerId);
    await pause(50); // the lock taken, the first outcome's end has come back
    two.report(OK);
    const count = async (key: string, command: string) =>
      Number(await a.link.command(key, [command, key]));
    await until(async () => (await count(keys.leases, 'ZCARD')) === 0); // both outcomes queued
    await until(async () => (await count(keys.samples, 'LLEN')) === 0); // and learned
    expect(Number((await stateOf(a, keys.state)).ver)).toBe(1);
  });

  it('a worker whose lock has lapsed makes no learner call as it closes', async () => {
    const fleet = await redis.fleet({ learnEveryMs: 100 });
    const registry = fleet.registry({ setup: controlSetup({}) });
    const counted = countReads(fleet);
    const scope = 'host:lapsed';
    (await registry.admit(scope)).report(OK);
    await learnedBy(fleet, scope, 1);
    await pause(LOCK_MS + 300); // idle since: the lock lapsed, nothing is queued
    const before = counted.reads;
    await registry.close();
    expect(counted.reads - before).toBe(0);
  });
});
