import { createClient } from '@redis/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ioredisLink } from '../../src/redis/ioredis-link.js';
import type { RedisLink } from '../../src/redis/link.js';
import { nodeRedisLink } from '../../src/redis/node-redis-link.js';
import { type RedisProcess, startRedisServer } from '../../src/redis/redis-process.js';
import { LuaScript } from '../../src/redis/script.js';

let server: RedisProcess;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server.close();
});

const counter = new LuaScript(
  "redis.call('SPUBLISH', KEYS[2], 'n' .. ARGV[1]) return redis.call('INCRBY', KEYS[1], ARGV[1])",
);

async function exercise(link: RedisLink, tag: string): Promise<void> {
  const heard: string[] = [];
  const channel = `rw:{${tag}}:ch`;
  await link.subscribe(channel, (message) => heard.push(message));
  const keys = [`rw:{${tag}}:n`, channel];
  expect(await counter.run(link, keys, ['2'])).toBe(2);
  await link.command(undefined, ['SCRIPT', 'FLUSH']); // the cache is gone: NOSCRIPT, then EVAL
  expect(await counter.run(link, keys, ['3'])).toBe(5);
  expect(await counter.run(link, keys, ['1'])).toBe(6); // cached again by that EVAL
  const found: string[] = [];
  for await (const key of link.scan(`rw:{${tag}}:*`)) found.push(key);
  expect(found).toEqual([`rw:{${tag}}:n`]);
  for (let i = 0; i < 50 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  expect(heard).toEqual(['n2', 'n3', 'n1']);
  await link.unsubscribe(channel);
}

describe('Redis links', () => {
  it('node-redis: scripts survive SCRIPT FLUSH, sharded messages arrive, SCAN finds keys', async () => {
    const client = createClient({ url: server.url });
    await client.connect();
    const link = nodeRedisLink(client as never);
    try {
      await exercise(link, 'node-redis');
    } finally {
      await link.close();
      await client.close();
    }
  });

  it('ioredis: the same through its own client', async () => {
    const client = new Redis(server.port, '127.0.0.1', { lazyConnect: true });
    await client.connect();
    const link = ioredisLink(client as never);
    try {
      await exercise(link, 'ioredis');
    } finally {
      await link.close();
      await client.quit();
    }
  });

  it('a script error other than NOSCRIPT is not retried', async () => {
    const client = createClient({ url: server.url });
    await client.connect();
    const failing = new LuaScript("return redis.call('INCR', KEYS[1])");
    await client.set('rw:{e}:text', 'not a number');
    try {
      await expect(
        failing.run(nodeRedisLink(client as never), ['rw:{e}:text'], []),
      ).rejects.toThrow(/not an integer/);
    } finally {
      await client.close();
    }
  });
});
