import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import { scopeKeys } from '../../src/redis/keys.js';
import type { RedisLink } from '../../src/redis/link.js';
import { acquireScript } from '../../src/redis/lua/acquire.js';
import { nodeRedisLink } from '../../src/redis/node-redis-link.js';
import { RedisFleet } from '../../src/redis/redis-fleet.js';
import { ScopeCalls } from '../../src/redis/scope-calls.js';
import { OK, pause, useRedis } from './fleet-helpers.js';

const redis = useRedis();
/** How long the slow worker's channel subscriptions take to be confirmed. */
const SUBSCRIBE_MS = 300;

/**
 * A worker whose subscriptions are confirmed `SUBSCRIBE_MS` late, and whose
 * first acquire reply, once it comes, runs `afterAcquire` before it is read.
 */
async function slowListener(afterAcquire: () => Promise<void> = async () => undefined) {
  const client = createClient({ url: redis.server().url, disableOfflineQueue: true });
  await client.connect();
  const inner = nodeRedisLink(client as never);
  let acquired = false;
  const link: RedisLink = {
    command: async (key, args) => {
      const reply = await inner.command(key, args);
      if (!acquired && args[0] === 'EVALSHA' && args[1] === acquireScript.sha) {
        acquired = true;
        await afterAcquire();
      }
      return reply;
    },
    subscribe: async (channel, listener) => {
      await pause(SUBSCRIBE_MS);
      await inner.subscribe(channel, listener);
    },
    unsubscribe: (channel) => inner.unsubscribe(channel),
    scan: (pattern) => inner.scan(pattern),
    close: () => inner.close(),
  };
  // As the other test fleets: a loaded machine may hold a reply past the 100 ms default.
  const fleet = new RedisFleet({
    link,
    workerId: 'slow-ears',
    log: () => undefined,
    callTimeoutMs: 1000,
  });
  await fleet.ready;
  return {
    fleet,
    close: async () => {
      await fleet.close();
      await client.close();
    },
  };
}

describe("a scope's first admission in a worker", () => {
  it('does not wait for the channel subscription when it is sent at once', async () => {
    const slow = await slowListener();
    const registry = slow.fleet.registry({ setup: controlSetup() });
    try {
      const started = performance.now();
      const permit = await registry.admit('host:first-at-once');
      const tookMs = performance.now() - started;
      permit.report(OK);
      // Waiting for the subscription first, it took 300 ms and more.
      expect(tookMs).toBeLessThan(SUBSCRIBE_MS / 2);
    } finally {
      await registry.close();
      await slow.close();
    }
  });

  it('holds a send it booked while deaf for a pause announced before it listened', async () => {
    const scope = 'host:first-booked';
    const control = { rate: 1, maxConcurrency: 16, initialConcurrency: 16 } as const;
    const quick = redis.registry(await redis.fleet(), control);
    const other = await redis.fleet();
    const calls = new ScopeCalls(other, scopeKeys('rw', scope), scope, ['16', '1']);
    let pausedAt = 0;
    // Another worker's Retry-After (2 s) reaches Redis just after the slow worker's booking:
    // announced while the slow worker does not listen yet.
    const slow = await slowListener(async () => {
      await calls.end('', {
        retryAfterMs: 2000,
        receivedAt: 0,
        congestion: false,
        epoch: 0,
        outcome: '',
      });
      pausedAt = performance.now();
    });
    const registry = slow.fleet.registry({ setup: controlSetup(control) });
    try {
      (await quick.admit(scope)).report(OK); // the schedule's next send is 1 s on
      const permit = await registry.admit(scope);
      const sentAfterPause = performance.now() - pausedAt;
      permit.report(OK);
      expect(pausedAt).toBeGreaterThan(0);
      // Booked 1 s after the first send; the pause holds it 2 s from its announcement.
      expect(sentAfterPause).toBeGreaterThanOrEqual(1950);
    } finally {
      await registry.close();
      await slow.close();
    }
  });
});
