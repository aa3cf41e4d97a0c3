import { describe, expect, it } from 'vitest';
import { scopeKeys } from '../../src/redis/keys.js';
import { OK, stateOf, useRedis } from './fleet-helpers.js';

const redis = useRedis();

describe('a fleet worker closing', () => {
  it('leaves what its last requests taught learned, not queued for whoever comes next', async () => {
    const fleet = await redis.fleet();
    const registry = redis.registry(fleet);
    const keys = scopeKeys('rw', 'host:short-run');
    (await registry.admit('host:short-run')).report(OK); // ended with the next call: the close
    await registry.close();
    expect(Number((await stateOf(fleet, keys.state)).ver)).toBe(1);
    expect(await fleet.link.command(keys.samples, ['LLEN', keys.samples])).toBe(0);
  });
});
