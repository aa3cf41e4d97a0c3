import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import type { ClientOptions } from '../../src/client/options.js';
import { ratewiseInfo } from '../../src/client/response-info.js';
import { ResponseTooLargeError } from '../../src/errors.js';
import type { ControlEvent } from '../../src/events/event.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { fastClock, startServer, type TestServer, waitFor } from './helpers.js';

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

  it('does not cap responses without a body (HEAD, 204, 304) by their Content-Length', async () => {
    server = await startServer((req, res) => {
      const status = req.url === '/304' ? 304 : req.url === '/204' ? 204 : 200;
      res.writeHead(status, { 'content-length': '2000', etag: '"v1"' });
      res.end(req.method === 'HEAD' || status !== 200 ? undefined : Buffer.alloc(2000));
    });
    client = createClient({ maxBodyBytes: 1000 });
    const head = await client.fetch(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('2000');
    expect(head.body).toBeNull();
    const notModified = await client.fetch(`${server.url}/304`, {
      headers: { 'if-none-match': '"v1"' },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    expect((await client.fetch(`${server.url}/204`)).body).toBeNull();
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

  it('does not count the time a slow reader leaves the download paused', async () => {
    const big = Buffer.alloc(1024 * 1024, 97);
    server = await startServer((_req, res) => res.end(big));
    const clock = new VirtualClock();
    const events: ControlEvent[] = [];
    client = createClient({ clock, timeoutMs: 1000, events: (e) => events.push(e) });
    const response = await client.fetch(server.url);
    const info = ratewiseInfo(response);
    await waitFor(() => (info?.timings().bytes ?? 0) >= 65_536); // paused: nobody reads yet
    await clock.advance(60_000); // the reader takes a minute to come back
    expect((await response.arrayBuffer()).byteLength).toBe(big.length);
    await info?.settled;
    expect(events.filter((e) => e.type === 'sample').map((e) => e.signal)).toEqual(['ok']);
  });

  it('rejects with the abort reason when the caller aborts, frees the slot and does not retry', async () => {
    server = await startServer(() => {});
    client = createClient();
    const controller = new AbortController();
    const pending = client.fetch(server.url, { signal: controller.signal });
    await waitFor(() => server?.seen.length === 1);
    controller.abort();
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
    const { FetchFailedError } = await import('../../src/errors.js');
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
      /fetch failed: http:\/\/127\.0\.0\.1:1\/: .*\(refused; 2 attempts in \d+\.\d s; retry\.refusedAttempts sets how many\)/,
    );
  });

  it('a closed port fails after 2 attempts, in under a second, saying so and naming the option', async () => {
    const { FetchFailedError } = await import('../../src/errors.js');
    const closed = await startServer(() => {});
    const url = `${closed.url}/x`;
    await closed.close();
    const clock = new VirtualClock();
    client = createClient({ clock });
    const error = await failureOnVirtualTime(client.fetch(url), clock);
    expect(error).toBeInstanceOf(FetchFailedError);
    const failed = error as InstanceType<typeof FetchFailedError>;
    expect(failed.attempts).toBe(2);
    expect(failed.elapsedMs).toBeLessThan(1000);
    expect(failed.message).toMatch(
      /\(refused; 2 attempts in 0\.\d s; retry\.refusedAttempts sets how many\)$/,
    );
  });

  it('refusedAttempts raises the attempts for refused connections, never above maxAttempts', async () => {
    const clock = new VirtualClock();
    client = createClient({ clock, breaker: false, retry: { refusedAttempts: 4 } });
    const four = await failureOnVirtualTime(client.fetch('http://127.0.0.1:1/'), clock);
    expect(four).toMatchObject({ attempts: 4 });
    await client.close();
    client = createClient({ clock, retry: { refusedAttempts: 4, maxAttempts: 3 } });
    const three = await failureOnVirtualTime(client.fetch('http://127.0.0.1:1/'), clock);
    expect(three).toMatchObject({ attempts: 3 });
  });

  it('admitSignal ends the wait for admission but not a request in flight', async () => {
    const held: { end(body: string): void }[] = [];
    server = await startServer((_req, res) => held.push(res));
    client = createClient({ maxConcurrency: 1, initialConcurrency: 1 });
    const stop = new AbortController();
    const init = { ratewise: { admitSignal: stop.signal } };
    const sent = client.fetch(server.url, init);
    const queued = client.fetch(server.url, init);
    const scope = () => client?.registry.get(`host:${new URL(server?.url ?? '').host}`);
    await waitFor(() => held.length === 1 && scope()?.queued === 1);
    stop.abort(new Error('deadline'));
    await expect(queued).rejects.toThrow('deadline');
    held[0]?.end('done');
    expect(await (await sent).text()).toBe('done');
    expect(server.seen).toHaveLength(1);
  });
});

describe('no timer outlives its request', () => {
  it('leaves no armed timer after a success, aborts (also an already-aborted signal) and a timeout', async () => {
    const { systemClock } = await import('../../src/clock.js');
    const live = new Set<number>();
    let ids = 0;
    const clock = {
      ...fastClock(50),
      setTimer(ms: number, callback: () => void) {
        const id = ++ids;
        live.add(id);
        const cancel = systemClock.setTimer(ms / 50, () => {
          live.delete(id);
          callback();
        });
        return () => {
          live.delete(id);
          cancel();
        };
      },
    };
    server = await startServer((req, res) => {
      if (req.url !== '/hang') res.end('ok');
    });
    const options: ClientOptions = {
      clock,
      retry: { maxAttempts: 1 },
      breaker: false,
      latencyGuard: false,
    };
    client = createClient({ ...options, timeoutMs: 60_000 });
    await (await client.fetch(server.url)).text();
    expect(live.size).toBe(0);
    await expect(client.fetch(server.url, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const controller = new AbortController();
    const hung = client.fetch(`${server.url}/hang`, { signal: controller.signal });
    await waitFor(() => live.size > 0 && server?.seen.length === 2); // the attempt's timeout is armed
    controller.abort();
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
    expect(live.size).toBe(0);
    const timing = createClient({ ...options, timeoutMs: 1000 });
    try {
      const error = await timing.fetch(`${server.url}/hang`).catch((e: unknown) => e);
      expect(error).toMatchObject({ signal: { kind: 'timeout' } });
      expect(live.size).toBe(0);
    } finally {
      await timing.close();
    }
  });
});

/** The error `fetching` rejects with, running `clock` (its backoffs are virtual sleeps) until then. */
async function failureOnVirtualTime(
  fetching: Promise<unknown>,
  clock: VirtualClock,
): Promise<unknown> {
  let outcome: { error: unknown } | undefined;
  fetching.then(
    () => {
      outcome = { error: new Error('expected the fetch to fail') };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  while (outcome === undefined) await clock.advance(50);
  return outcome.error;
}
