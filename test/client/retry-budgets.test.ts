import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { createClient } from '../../src/client/client.js';
import { allOf, byContext, byHost } from '../../src/controller/resolvers.js';
import { startServer, type TestServer } from './helpers.js';

let server: TestServer;
let host: string;
beforeAll(async () => {
  server = await startServer((_req, res) => {
    res.statusCode = 500; // server-error: retried, and neither cuts nor trips anything
    res.end('broken');
  });
  host = `host:${new URL(server.url).host}`;
});
afterAll(() => server.close());

describe('retry budgets of a request that spans several scopes', () => {
  it('charge every scope for each retry, and retry only while every scope can pay', async () => {
    const client = createClient({
      scope: allOf(byContext('account'), byHost),
      retryBudget: { reserve: 2, ratio: 0 },
      retry: { backoff: fullJitter({ baseMs: 1, capMs: 2 }) },
    });
    const fetchAs = async (account: string) => {
      const before = server.seen.length;
      const response = await client.fetch(`${server.url}/${account}`, {
        ratewise: { context: { account } },
      });
      await response.arrayBuffer();
      return server.seen.length - before;
    };
    const balance = (scope: string) => client.registry.get(scope)?.retryBudget.balance;
    try {
      // Two retries spend both scopes' reserves, not only the first scope's.
      expect(await fetchAs('a')).toBe(3);
      expect([balance('account:a'), balance(host)]).toEqual([0, 0]);
      // The host has no retry left: another account's request is not retried,
      // and its own allowance is left whole.
      expect(await fetchAs('b')).toBe(1);
      expect([balance('account:b'), balance(host)]).toEqual([2, 0]);
    } finally {
      await client.close();
    }
  });
});
