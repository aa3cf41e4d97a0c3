import ky from 'ky';
import { Request as UndiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { seededRandom } from '../../src/random.js';
import { fastClock, startServer, type TestServer, waitFor } from '../client/helpers.js';
import { eventLog, RETRY_AFTER_FORMS, startScriptedServer } from './scripted-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

function setup(timeoutMs?: number) {
  const log = eventLog();
  const client = createClient({
    clock: fastClock(50),
    random: seededRandom(1),
    retry: { backoff: fullJitter({ baseMs: 10, capMs: 20 }), maxAttempts: timeoutMs ? 1 : 6 },
    events: log.sink,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  const api = ky.create({ fetch: client.fetch, prefixUrl: server.url });
  return { client, api, log };
}

function inflight(client: RatewiseClient): number {
  let total = 0;
  for (const controller of client.registry.controllers()) total += controller.inflight;
  return total;
}

const hits = (path: string) => server.seen.filter((r) => r.path === path).length;
const samples = (log: ReturnType<typeof eventLog>) => log.events.filter((e) => e.type === 'sample');

describe('ky with client.fetch', () => {
  for (const form of Object.keys(RETRY_AFTER_FORMS)) {
    it(`gets through a 429 with Retry-After as ${form}: ratewise retries, ky sees the 200`, async () => {
      const { client, api, log } = setup();
      const path = `/429/${form}/ky`;
      expect(await api.get(path.slice(1)).text()).toBe('ok');
      expect(hits(path)).toBe(2);
      expect(log.events.find((e) => e.type === 'pause')?.reason).toMatch(/^paused \d+ ms on 429/);
      expect(samples(log).map((e) => e.status)).toEqual([429, 200]);
      expect(inflight(client)).toBe(0);
      await client.close();
    });
  }

  it('gets through a 503 and a reset', async () => {
    const { client, api, log } = setup();
    expect(await api.get('503/ky').text()).toBe('ok');
    expect(await api.get('reset/ky').text()).toBe('ok');
    expect(samples(log).map((e) => e.signal)).toEqual(['overloaded', 'ok', 'reset', 'ok']);
    expect(inflight(client)).toBe(0);
    await client.close();
  });

  it('fails a request that times out, reported as a timeout', async () => {
    const { client, api, log } = setup(50);
    await expect(api.get('hang/ky-timeout', { retry: 0 }).text()).rejects.toThrow();
    expect(samples(log).map((e) => e.signal)).toEqual(['timeout']);
    expect(inflight(client)).toBe(0);
    await client.close();
  });

  it("passes ky's abort signal through", async () => {
    const { client, api, log } = setup();
    const controller = new AbortController();
    const pending = api.get('hang/ky-abort', { signal: controller.signal }).text();
    await waitFor(() => hits('/hang/ky-abort') === 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(samples(log)).toEqual([]);
    await waitFor(() => inflight(client) === 0);
    await client.close();
  });

  it('admits every hop of a redirect chain', async () => {
    const { client, api, log } = setup();
    expect(await api.get('redirect/3/ky').text()).toBe('ok');
    expect(samples(log).map((e) => e.status)).toEqual([302, 302, 302, 200]);
    expect(inflight(client)).toBe(0);
    await client.close();
  });

  it('frees the slot when a streamed body is cancelled half-way', async () => {
    const { client, api, log } = setup();
    const response = await api.get('big/ky');
    const reader = response.body?.getReader();
    await reader?.read();
    expect(inflight(client)).toBe(1);
    await reader?.cancel();
    await waitFor(() => inflight(client) === 0);
    expect(samples(log).map((e) => e.status)).toEqual([200]);
    await client.close();
  });
});

describe('client.fetch with a Request of another copy of undici', () => {
  it('sends its url, method, headers and streamed body', async () => {
    const bodies: string[] = [];
    const echo = await startServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push(body);
        res.end('done');
      });
    });
    const client = createClient();
    const request = new UndiciRequest(`${echo.url}/submit?x=1`, {
      method: 'PUT',
      headers: { 'x-test': 'yes', 'content-type': 'text/plain' },
      body: 'payload',
    });
    expect(request instanceof Request).toBe(false);
    const response = await client.fetch(request as unknown as Request);
    expect(await response.text()).toBe('done');
    expect(echo.seen[0]).toMatchObject({ method: 'PUT', path: '/submit?x=1' });
    expect(echo.seen[0]?.headers['x-test']).toBe('yes');
    expect(bodies).toEqual(['payload']);
    await client.close();
    await echo.close();
  });

  it("honours the foreign Request's abort signal", async () => {
    const client = createClient();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const request = new UndiciRequest(`${server.url}/ok`, { signal: controller.signal });
    await expect(client.fetch(request as unknown as Request)).rejects.toThrow('stop');
    await client.close();
  });
});
