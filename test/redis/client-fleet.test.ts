import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { InvalidOptionError } from '../../src/errors.js';
import { scopeKeys } from '../../src/redis/keys.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { stateOf, until, useRedis } from './fleet-helpers.js';

const redis = useRedis();
let server: Server;
let origin: string;
/** When each request reached the server, ms. */
const arrivals: number[] = [];

beforeAll(async () => {
  server = createServer((_request, response) => {
    arrivals.push(performance.now());
    // The first request is refused with Retry-After: 1; every later one succeeds.
    if (arrivals.length === 1) response.writeHead(429, { 'retry-after': '1' }).end();
    else response.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('createClient({ fleet })', () => {
  it('a Retry-After answered to one client holds the other client of the fleet', async () => {
    const fleet = await redis.fleet();
    const [a, b] = [createClient({ fleet: await redis.fleet() }), createClient({ fleet })];
    const state = scopeKeys('rw', `host:${new URL(origin).host}`).state;
    try {
      const first = a.fetch(`${origin}/a`); // refused, retried after the pause
      await until(async () => Number((await stateOf(fleet, state)).pause) > 0); // the pause reached Redis
      const second = await b.fetch(`${origin}/b`);
      expect(second.status).toBe(200);
      expect((await first).status).toBe(200);
      const [refusedAt, ...later] = arrivals as [number, ...number[]];
      for (const at of later) expect(at - refusedAt).toBeGreaterThanOrEqual(950);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('rejects a store beside a fleet, naming both', async () => {
    const fleet = await redis.fleet();
    expect(() => createClient({ fleet, store: new MemoryStore() })).toThrow(InvalidOptionError);
    expect(() => createClient({ fleet: {} as never })).toThrow(/option `fleet` must be a Fleet/);
  });
});
