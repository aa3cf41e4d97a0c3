import axios, { type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { type RatewiseAxiosAdapter, ratewiseAdapter } from '../../src/integrations/axios.js';
import { seededRandom } from '../../src/random.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { fastClock, type TestServer, waitFor } from '../client/helpers.js';
import { eventLog, RETRY_AFTER_FORMS, startScriptedServer } from './scripted-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

function setup() {
  const log = eventLog();
  const adapter = ratewiseAdapter(axios, {
    clock: fastClock(10),
    random: seededRandom(1),
    backoff: fullJitter({ baseMs: 10, capMs: 20 }),
    events: log.sink,
  });
  const api = axios.create({ adapter, baseURL: server.url });
  axiosRetry(api, { retries: 3, retryDelay: adapter.retryDelay });
  return { adapter, api, log };
}

function inflight(adapter: RatewiseAxiosAdapter): number {
  let total = 0;
  for (const controller of adapter.registry.controllers()) total += controller.inflight;
  return total;
}

const hits = (path: string) => server.seen.filter((r) => r.path === path).length;

describe('ratewise/axios', () => {
  for (const form of Object.keys(RETRY_AFTER_FORMS)) {
    it(`retries a 429 with Retry-After as ${form} once the scope's pause is over`, async () => {
      const { adapter, api, log } = setup();
      const path = `/429/${form}/axios`;
      const response = await api.get(path);
      expect(response.status).toBe(200);
      expect(hits(path)).toBe(2);
      expect(log.events.find((e) => e.type === 'pause')?.reason).toMatch(/^paused \d+ ms on 429/);
      const [first, second] = log.events.filter((e) => e.type === 'sample');
      expect(first?.status).toBe(429);
      expect(second?.status).toBe(200);
      expect(inflight(adapter)).toBe(0);
      await adapter.close();
    });
  }

  it("the retry waits in admission until the scope's pause is over (virtual clock)", async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const adapter = ratewiseAdapter(axios, { clock });
    const api = axios.create({ adapter, baseURL: server.url });
    axiosRetry(api, { retries: 3, retryDelay: adapter.retryDelay });
    const pending = api.get('/429/seconds/axios-virtual');
    await waitFor(() => adapter.registry.get(`host:${new URL(server.url).host}`)?.queued === 1);
    expect(hits('/429/seconds/axios-virtual')).toBe(1); // axios-retry's own delay was 0: it waits here
    await clock.advance(999);
    expect(hits('/429/seconds/axios-virtual')).toBe(1);
    await clock.advance(1);
    expect((await pending).status).toBe(200);
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('retries a 503 and a reset, each attempt reported', async () => {
    const { adapter, api, log } = setup();
    expect((await api.get('/503/axios')).status).toBe(200);
    expect((await api.get('/reset/axios')).status).toBe(200);
    const kinds = log.events.filter((e) => e.type === 'sample').map((e) => e.signal);
    expect(kinds).toEqual(['overloaded', 'ok', 'reset', 'ok']);
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('reports an axios timeout as a timeout', async () => {
    const { adapter, log } = setup();
    const api = axios.create({ adapter, baseURL: server.url, timeout: 50 });
    await expect(api.get('/hang/axios-timeout')).rejects.toMatchObject({ code: 'ECONNABORTED' });
    expect(log.events.find((e) => e.type === 'sample')?.signal).toBe('timeout');
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('releases an aborted attempt without an outcome', async () => {
    const { adapter, api, log } = setup();
    const controller = new AbortController();
    const pending = api.get('/hang/axios-abort', { signal: controller.signal });
    await waitFor(() => hits('/hang/axios-abort') === 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ERR_CANCELED' });
    expect(log.events.filter((e) => e.type === 'sample')).toEqual([]);
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('follows a redirect chain as one attempt', async () => {
    const { adapter, api, log } = setup();
    const response = await api.get('/redirect/3/axios');
    expect(response.status).toBe(200);
    expect(hits('/redirect/0/axios')).toBe(1);
    expect(log.events.filter((e) => e.type === 'sample')).toHaveLength(1);
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('reports a streamed 429 that validateStatus lets through at its head, before its body is over', async () => {
    const { adapter, api, log } = setup();
    const response = await api.get('/slow-429/axios', {
      responseType: 'stream',
      validateStatus: () => true,
    });
    expect(response.status).toBe(429);
    expect(log.events.filter((e) => e.type === 'sample').map((e) => e.status)).toEqual([429]);
    expect(inflight(adapter)).toBe(0);
    (response.data as { destroy(): void }).destroy();
    await adapter.close();
  });

  it('holds a streamed body until it is destroyed half-way', async () => {
    const { adapter, api, log } = setup();
    const response = await api.get('/big/axios', { responseType: 'stream' });
    expect(inflight(adapter)).toBe(1);
    const stream = response.data as NodeJS.ReadableStream & { destroy(): void };
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await waitFor(() => inflight(adapter) === 0);
    expect(log.events.filter((e) => e.type === 'sample').map((e) => e.status)).toEqual([200]);
    await adapter.close();
  });

  it('waits for admission: a second request queues behind a limit of one', async () => {
    const adapter = ratewiseAdapter(axios, { maxConcurrency: 1, initialConcurrency: 1 });
    const api: AxiosInstance = axios.create({ adapter, baseURL: server.url });
    const stream = await api.get('/big/axios-queue', { responseType: 'stream' });
    const second = api.get('/ok/axios-queue');
    const scope = adapter.registry.get(`host:${new URL(server.url).host}`);
    await waitFor(() => scope?.queued === 1);
    expect(hits('/ok/axios-queue')).toBe(0);
    (stream.data as { destroy(): void }).destroy();
    expect((await second).status).toBe(200);
    expect(inflight(adapter)).toBe(0);
    await adapter.close();
  });

  it('rejects unknown options with the option named', () => {
    expect(() => ratewiseAdapter(axios, { maxConcurency: 3 } as never)).toThrow(/maxConcurency/);
    expect(() => ratewiseAdapter(axios, { retry: {} } as never)).toThrow(
      /ratewiseAdapter: unknown option `retry`/,
    );
  });

  it('checks the options it adds and those every integration takes', () => {
    expect(() => ratewiseAdapter(axios, { adapter: 5 } as never)).toThrow(
      /ratewiseAdapter: option `adapter` must be an axios adapter/,
    );
    expect(() => ratewiseAdapter(axios, { maxAdmissionWaitMs: -1 })).toThrow(
      /option `maxAdmissionWaitMs` must be a number >= 0/,
    );
    expect(() => ratewiseAdapter(axios, { backoff: 500 } as never)).toThrow(
      /option `backoff` must be a Backoff/,
    );
  });
});
