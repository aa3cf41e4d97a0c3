import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { RetryAfterTooLongError } from '../../src/errors.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { startHostileServer } from '../../src/testing/hostile-server.js';
import { pause, stateOf, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('a fleet told Retry-After: 99999999 (issue 14.1)', () => {
  it('pauses the scope fleet-wide for maxPauseMs at most, not for a day', async () => {
    const hostile = await startHostileServer();
    const fleet = await redis.fleet();
    const client = createClient({ fleet });
    try {
      await expect(client.fetch(`${hostile.url}/retry-after?value=99999999`)).rejects.toThrow(
        RetryAfterTooLongError,
      );
      await pause(200); // the release reaches Redis
      const scope = `host:${new URL(hostile.url).host}`;
      const state = await stateOf(fleet, scopeKeys('rw', scope).state);
      const [seconds, micros] = (await fleet.link.command(scopeKeys('rw', scope).state, [
        'TIME',
      ])) as [string, string];
      const redisNow = Number(seconds) * 1000 + Number(micros) / 1000;
      expect(Number(state.pause)).toBeGreaterThan(redisNow + 290_000);
      expect(Number(state.pause)).toBeLessThanOrEqual(redisNow + 300_000);
    } finally {
      await client.close();
      await hostile.close();
    }
  });
});
