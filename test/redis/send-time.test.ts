import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import type { RedisLink } from '../../src/redis/link.js';
import { acquireScript } from '../../src/redis/lua/acquire.js';
import { nodeRedisLink } from '../../src/redis/node-redis-link.js';
import { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, useRedis } from './fleet-helpers.js';

const redis = useRedis();
/** 10 req/s: sends 100 ms apart on the shared schedule. */
const CONTROL = { rate: 10, maxConcurrency: 16, initialConcurrency: 16 } as const;
/** How long the slow worker's acquire reply takes to come back (within its call timeout). */
const REPLY_DELAY_MS = 150;

/** A link whose next acquire reply comes `REPLY_DELAY_MS` late, once `slowNext()` is called. */
function slowableLink(inner: RedisLink): { link: RedisLink; slowNext: () => void } {
  let slow = false;
  const link: RedisLink = {
    command: async (key, args) => {
      const reply = await inner.command(key, args);
      if (slow && args[0] === 'EVALSHA' && args[1] === acquireScript.sha) {
        slow = false;
        await pause(REPLY_DELAY_MS);
      }
      return reply;
    },
    subscribe: (channel, listener) => inner.subscribe(channel, listener),
    unsubscribe: (channel) => inner.unsubscribe(channel),
    scan: (pattern) => inner.scan(pattern),
    close: () => inner.close(),
  };
  return { link, slowNext: () => (slow = true) };
}

describe("a request's send time on the shared schedule", () => {
  it("is Redis's booking on the worker's clock, not the wait counted from when a late reply is read", async () => {
    const scope = 'host:send-time';
    const client = createClient({ url: redis.server().url, disableOfflineQueue: true });
    await client.connect();
    const { link, slowNext } = slowableLink(nodeRedisLink(client as never));
    const slowFleet = new RedisFleet({ link, workerId: 'slow', log: () => undefined });
    const slow = slowFleet.registry({ setup: controlSetup(CONTROL) });
    const quick = redis.registry(await redis.fleet(), CONTROL);
    try {
      await slowFleet.ready;
      // The slow worker's clock offset is measured on a reply that came at once.
      (await slow.admit(scope)).report(OK);
      await pause(300); // the schedule is free again
      const first = await quick.admit(scope);
      const firstAt = performance.now();
      slowNext();
      // Booked 100 ms after the quick worker's send; the reply comes 150 ms late.
      const second = await slow.admit(scope);
      const gap = performance.now() - firstAt;
      first.report(OK);
      second.report(OK);
      expect(gap).toBeGreaterThanOrEqual(90);
      // Counted from the late reply it would be 100 + 150 ms (250-262 measured on that code);
      // the reply itself takes 150 ms, and a loaded machine's event loop adds tens more.
      expect(gap).toBeLessThan(100 + REPLY_DELAY_MS * (2 / 3));
    } finally {
      await slow.close();
      await slowFleet.close();
      await client.close();
    }
  });
});
