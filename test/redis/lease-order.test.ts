import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { learnReadScript } from '../../src/redis/lua/learn.js';
import { shareScript } from '../../src/redis/lua/share.js';
import type { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, REFUSED, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('outcomes under a rate lease reach the learner in the order they were answered', () => {
  it('a refusal carries the successes gathered before it (the learner measures what was granted from them)', async () => {
    // Renewals every second, no flush of gathered outcomes for 5 s: only the refusal can carry them.
    const fleet = await redis.fleet({ leaseMs: 3000, learnEveryMs: 5000, rateLeaseMinRequests: 2 });
    const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
    const scope = 'host:lease-order';
    const keys = scopeKeys('rw', scope);
    // Another worker holds the learning lock: the queued outcomes stay where the test reads them.
    await fleet.link.command(keys.learner, ['SET', keys.learner, 'w-other', 'PX', '60000']);
    const share = async () =>
      String((await fleet.link.command(keys.shares, ['HGET', keys.shares, 'w1'])) ?? '');
    let ok = 0;
    let running = true;
    const lanes = Array.from({ length: 4 }, async () => {
      while (running) {
        const permit = await registry.admit(scope);
        await pause(5);
        permit.report(OK);
        ok++;
      }
    });
    const since = performance.now();
    while ((await share()) === '' && performance.now() - since < 5000) await pause(20);
    expect(await share()).not.toBe('');
    // Requests admitted one by one before the share have ended; successes since are gathered.
    await pause(200);
    const refused = await registry.admit(scope);
    const okBefore = ok;
    refused.report(REFUSED);
    /** The queued outcomes' kinds, once the refusal is among them. */
    const queued = async () => {
      const raw = (await fleet.link.command(keys.samples, [
        'LRANGE',
        keys.samples,
        '0',
        '-1',
      ])) as string[];
      return raw.map((text) => (JSON.parse(text) as { g: { kind: string } }).g.kind);
    };
    let kinds = await queued();
    while (!kinds.includes('throttled') && performance.now() - since < 10_000) {
      await pause(2);
      kinds = await queued();
    }
    running = false;
    await Promise.all(lanes);
    expect(kinds).toContain('throttled');
    // Before, the successes gathered since the last renewal came with the next one, after it.
    const okQueued = kinds.slice(0, kinds.indexOf('throttled')).filter((k) => k === 'ok').length;
    expect(okQueued).toBeGreaterThanOrEqual(okBefore);
    expect(okBefore).toBeGreaterThan(0);
  });

  it('outcomes a renewal brings are learned at once by the worker holding the lock, not at its next look', async () => {
    // Renewals every second; the learner looks every 3 s by itself.
    const fleet = await redis.fleet({ leaseMs: 3000, learnEveryMs: 3000, rateLeaseMinRequests: 2 });
    const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
    /** This worker's shares bringing outcomes ('s') and learner reads ('l'), in the order sent. */
    const calls: string[] = [];
    const command = fleet.link.command.bind(fleet.link);
    fleet.link.command = (key, args) => {
      if (args[1] === shareScript.sha && args.length > 3 + 8 + 12) calls.push('s');
      if (args[1] === learnReadScript.sha) calls.push('l');
      return command(key, args);
    };
    let running = true;
    const lanes = Array.from({ length: 4 }, async () => {
      while (running) {
        const permit = await registry.admit('host:lease-learns');
        await pause(5);
        permit.report(OK);
      }
    });
    await pause(7000);
    running = false;
    await Promise.all(lanes);
    // From the learner's first read on (it holds the lock), each renewal bringing outcomes is
    // followed by a read before the next one; before, by one every third renewal or so.
    const since = calls.slice(calls.indexOf('l'));
    const shares = since.filter((call) => call === 's').length;
    const learnedAtOnce = since.filter((call, i) => call === 's' && since[i + 1] === 'l').length;
    expect(shares).toBeGreaterThanOrEqual(3);
    expect(learnedAtOnce).toBeGreaterThanOrEqual(0.8 * shares);
  });

  it('a cut is learned with the outcomes other workers gathered before it: they send them when they hear of it, the learner waits for them', async () => {
    // Renewals every 2 s, no flush of gathered outcomes for 5 s.
    const options = { leaseMs: 6000, learnEveryMs: 5000, rateLeaseMinRequests: 2 };
    const [a, b] = [await redis.fleet(options), await redis.fleet(options)];
    const scope = 'host:cut-settles';
    const keys = scopeKeys('rw', scope);
    /** Each worker's learner reads ('a:read') and shares bringing outcomes ('b:share'), in order. */
    const calls: string[] = [];
    const spy = (fleet: RedisFleet, name: string) => {
      const command = fleet.link.command.bind(fleet.link);
      fleet.link.command = (key, args) => {
        if (args[1] === shareScript.sha && args.length > 3 + 8 + 12) calls.push(`${name}:share`);
        if (args[1] === learnReadScript.sha) calls.push(`${name}:read`);
        return command(key, args);
      };
    };
    spy(a, 'a');
    spy(b, 'b');
    let running = true;
    const drive = (fleet: RedisFleet) => {
      const registry = redis.registry(fleet, { maxConcurrency: 8, initialConcurrency: 8 });
      const lanes = Array.from({ length: 4 }, async () => {
        while (running) {
          const permit = await registry.admit(scope);
          await pause(5);
          permit.report(OK);
        }
      });
      return { registry, lanes };
    };
    const first = drive(a); // a queues the first outcomes: it takes the learning lock
    const since = performance.now();
    const learner = async () => String(await a.link.command(keys.learner, ['GET', keys.learner]));
    while ((await learner()) !== a.settings.workerId && performance.now() - since < 15_000)
      await pause(20);
    const second = drive(b);
    const shares = async () =>
      ((await a.link.command(keys.shares, ['HVALS', keys.shares])) as string[]).filter(
        (share) => Number(share.split(' ')[1]) > 0,
      ).length;
    while ((await shares()) < 2 && performance.now() - since < 20_000) await pause(20);
    expect(await shares()).toBe(2);
    expect(await learner()).toBe(a.settings.workerId);
    await pause(300); // both gather successes
    const mark = calls.length;
    (await first.registry.admit(scope)).report(REFUSED);
    while (!calls.slice(mark).includes('a:read') && performance.now() - since < 30_000)
      await pause(5);
    running = false;
    await Promise.all([...first.lanes, ...second.lanes]);
    const after = calls.slice(mark);
    // Before, the learner read the refusal at once; b's successes came with its next renewal.
    expect(after).toContain('b:share');
    expect(after.indexOf('b:share')).toBeLessThan(after.indexOf('a:read'));
  }, 60_000);
});
