import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { controlSetup } from '../../src/controller/defaults.js';
import type { RedisLink } from '../../src/redis/link.js';
import { acquireScript } from '../../src/redis/lua/acquire.js';
import { nodeRedisLink } from '../../src/redis/node-redis-link.js';
import { RedisFleet } from '../../src/redis/redis-fleet.js';
import { OK, pause, useRedis } from './fleet-helpers.js';

const redis = useRedis();
/** 4 req/s: sends 250 ms apart on the shared schedule. */
const CONTROL = { rate: 4, maxConcurrency: 16, initialConcurrency: 16 } as const;
const INTERVAL_MS = 1000 / CONTROL.rate;
/** The slow worker's call timeout, ms: a call unanswered so long is asked again this much later. */
const CALL_TIMEOUT_MS = 300;
/**
 * How long the slow worker's acquire reply takes to come back: past its booked send time and
 * its call's timeout (read as a late reply), before the worker asks again (twice the timeout).
 */
const REPLY_DELAY_MS = 450;

/**
 * A link whose next acquire reply comes `REPLY_DELAY_MS` late, once `slowNext()` is called;
 * `repliedAt()` is when that reply was handed to the fleet (local ms).
 */
function slowableLink(inner: RedisLink): {
  link: RedisLink;
  slowNext: () => void;
  repliedAt: () => number;
} {
  let slow = false;
  let repliedAt = Number.NaN;
  const link: RedisLink = {
    command: async (key, args) => {
      const reply = await inner.command(key, args);
      if (slow && args[0] === 'EVALSHA' && args[1] === acquireScript.sha) {
        slow = false;
        await pause(REPLY_DELAY_MS);
        repliedAt = performance.now();
      }
      return reply;
    },
    subscribe: (channel, listener) => inner.subscribe(channel, listener),
    unsubscribe: (channel) => inner.unsubscribe(channel),
    scan: (pattern) => inner.scan(pattern),
    close: () => inner.close(),
  };
  return { link, slowNext: () => (slow = true), repliedAt: () => repliedAt };
}

describe("a request's send time on the shared schedule", () => {
  it("is Redis's booking on the worker's clock, not the wait counted from when a late reply is read", async () => {
    const scope = 'host:send-time';
    const client = createClient({ url: redis.server().url, disableOfflineQueue: true });
    await client.connect();
    const { link, slowNext, repliedAt } = slowableLink(nodeRedisLink(client as never));
    const slowFleet = new RedisFleet({
      link,
      workerId: 'slow',
      log: () => undefined,
      callTimeoutMs: CALL_TIMEOUT_MS,
    });
    const slow = slowFleet.registry({ setup: controlSetup(CONTROL) });
    const quick = redis.registry(await redis.fleet(), CONTROL);
    try {
      await slowFleet.ready;
      // The slow worker's clock offset is measured on a reply that came at once.
      (await slow.admit(scope)).report(OK);
      await pause(2 * INTERVAL_MS); // the schedule is free again
      const first = await quick.admit(scope);
      slowNext();
      // Booked 250 ms after the quick worker's send; the reply comes 450 ms late, past it.
      const second = await slow.admit(scope);
      const afterReply = performance.now() - repliedAt();
      first.report(OK);
      second.report(OK);
      // Its booked time has passed when the reply is read: sent at once. Counted from the
      // reply it would wait the booking's 250 ms (less the few ms before Redis booked it)
      // again; a loaded machine's event loop delays the caller by tens of ms at most.
      expect(afterReply).toBeGreaterThanOrEqual(0);
      expect(afterReply).toBeLessThan(INTERVAL_MS / 2);
    } finally {
      await slow.close();
      await slowFleet.close();
      await client.close();
    }
  });
});
