import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { ResponseTooLargeError } from '../../src/client/client-errors.js';
import { ratewiseInfo } from '../../src/client/response-info.js';
import type { ControlEvent } from '../../src/events/event.js';
import { startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const inflight = (c: RatewiseClient, s: TestServer) =>
  c.registry.get(`host:${new URL(s.url).host}`)?.inflight;

describe('limits, timeouts and cancellation', () => {
  it('refuses a body whose Content-Length exceeds maxBodyBytes at once', async () => {
    server = await startServer((_req, res) => res.end(Buffer.alloc(2000)));
    client = createClient({ maxBodyBytes: 1000 });
    await expect(client.fetch(server.url)).rejects.toThrow(ResponseTooLargeError);
    expect(inflight(client, server)).toBe(0);
  });

  it('fails the body stream when a chunked body grows past maxBodyBytes', async () => {
    server = await startServer((_req, res) => {
      res.write(Buffer.alloc(600));
      setTimeout(() => res.end(Buffer.alloc(600)), 20);
    });
    client = createClient({ maxBodyBytes: 1000 });
    const response = await client.fetch(server.url);
    await expect(response.arrayBuffer()).rejects.toThrow(/maxBodyBytes \(1000\)/);
    await ratewiseInfo(response)?.settled;
    expect(inflight(client, server)).toBe(0);
  });

  it('times out a hung attempt, reports it as a timeout and retries', async () => {
    server = await startServer((_req, res, index) => {
      if (index > 0) res.end('late but fine');
    });
    const events: ControlEvent[] = [];
    client = createClient({ timeoutMs: 100, events: (e) => events.push(e) });
    const response = await client.fetch(server.url);
    expect(await response.text()).toBe('late but fine');
    expect(ratewiseInfo(response)?.attempts).toBe(2);
    expect(events.filter((e) => e.type === 'sample').map((e) => e.signal)).toEqual([
      'timeout',
      'ok',
    ]);
  });

  it('rejects with the abort reason when the caller aborts, frees the slot and does not retry', async () => {
    server = await startServer(() => {});
    client = createClient();
    const controller = new AbortController();
    const pending = client.fetch(server.url, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(inflight(client, server)).toBe(0);
    expect(server.seen).toHaveLength(1);
  });

  it('aborting while the body streams errors the body', async () => {
    server = await startServer((_req, res) => res.write('partial'));
    client = createClient();
    const controller = new AbortController();
    const response = await client.fetch(server.url, { signal: controller.signal });
    controller.abort();
    await expect(response.text()).rejects.toMatchObject({ name: 'AbortError' });
    await ratewiseInfo(response)?.settled;
    expect(inflight(client, server)).toBe(0);
  });
});

describe('failures without a response', () => {
  it('reject with a FetchFailedError (a TypeError) carrying attempts, signal and cause', async () => {
    const { FetchFailedError } = await import('../../src/client/client-errors.js');
    const { fastClock } = await import('./helpers.js');
    client = createClient({ clock: fastClock(50), retry: { maxAttempts: 2 }, breaker: false });
    const error = await client.fetch('http://127.0.0.1:1/').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      attempts: 2,
      signal: { kind: 'refused' },
      cause: { code: 'ECONNREFUSED' },
    });
    expect(String((error as Error).message)).toMatch(
      /fetch failed: http:\/\/127\.0\.0\.1:1\/: .*refused, after 2 attempts/,
    );
  });

  it('admitSignal ends the wait for admission but not a request in flight', async () => {
    server = await startServer((_req, res) => setTimeout(() => res.end('done'), 60));
    client = createClient({ maxConcurrency: 1, initialConcurrency: 1 });
    const stop = new AbortController();
    const init = { ratewise: { admitSignal: stop.signal } };
    const sent = client.fetch(server.url, init);
    const queued = client.fetch(server.url, init);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort(new Error('deadline'));
    await expect(queued).rejects.toThrow('deadline');
    expect(await (await sent).text()).toBe('done');
    expect(server.seen).toHaveLength(1);
  });
});

describe('no timer outlives its request', () => {
  it('leaves no armed timer after successes, aborts (also already-aborted signals) and timeouts', async () => {
    const { systemClock } = await import('../../src/clock.js');
    let armed = 0;
    const clock = {
      ...systemClock,
      setTimer(ms: number, callback: () => void) {
        armed++;
        const cancel = systemClock.setTimer(ms, () => {
          armed--;
          callback();
        });
        return () => {
          if (armed > 0) armed--;
          cancel();
        };
      },
    };
    server = await startServer((req, res) => {
      if (req.url !== '/hang') res.end('ok');
    });
    client = createClient({ clock, timeoutMs: 60_000, retry: { maxAttempts: 1 } });
    await (await client.fetch(server.url)).text();
    await expect(client.fetch(server.url, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const controller = new AbortController();
    const hung = client.fetch(`${server.url}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
    expect(armed).toBe(0);
  });
});
