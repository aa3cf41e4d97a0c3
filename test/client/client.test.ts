import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { ratewiseInfo, ratewiseTimings } from '../../src/client/response-info.js';
import type { ControlEvent } from '../../src/events/event.js';
import { startServer, type TestServer, waitFor } from './helpers.js';

let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const scopeOf = (url: string) => `host:${new URL(url).host}`;

describe('createClient: fetch', () => {
  it('returns a standard Response with url, status, headers and body', async () => {
    server = await startServer((req, res) => {
      res.setHeader('x-echo', req.headers['x-test'] ?? '');
      res.end(`hello ${req.method} ${req.url}`);
    });
    client = createClient();
    const response = await client.fetch(`${server.url}/a?b=1`, { headers: { 'x-test': 'yes' } });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${server.url}/a?b=1`);
    expect(response.redirected).toBe(false);
    expect(response.headers.get('x-echo')).toBe('yes');
    expect(await response.text()).toBe('hello GET /a?b=1');
    expect(ratewiseInfo(response)).toMatchObject({
      attempts: 1,
      redirects: 0,
      signal: { kind: 'ok' },
    });
  });

  it('sends request bodies of every fetch kind, with their content type', async () => {
    server = await startServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.end(`${req.headers['content-type']}|${body}`));
    });
    client = createClient();
    const post = (body: NonNullable<RequestInit['body']>) =>
      client?.fetch(server?.url ?? '', { method: 'POST', body });
    expect(await (await post('text'))?.text()).toBe('text/plain;charset=UTF-8|text');
    expect(await (await post(new URLSearchParams({ a: '1' })))?.text()).toBe(
      'application/x-www-form-urlencoded;charset=UTF-8|a=1',
    );
    expect(await (await post(new Uint8Array([104, 105])))?.text()).toBe('undefined|hi');
  });

  it('measures the phases: a fresh connection, ttfb, total and bytes', async () => {
    // The first response's end waits until the client has its head, then for ~30 ms measured
    // here: what the client saw between its first and last byte is at least that, however late
    // a loaded machine let it read the head (a server-side delay is not).
    let finishFirst = () => {};
    server = await startServer((_req, res, index) => {
      res.writeHead(200);
      res.write('a'.repeat(1000));
      if (index === 0) finishFirst = () => res.end('b'.repeat(500));
      else res.end('b'.repeat(500));
    });
    const events: ControlEvent[] = [];
    client = createClient({ events: (event) => events.push(event) });
    const response = await client.fetch(server.url);
    const headSeenAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const heldMs = performance.now() - headSeenAt;
    finishFirst();
    expect((await response.text()).length).toBe(1500);
    const timings = ratewiseTimings(response);
    expect(timings?.bytes).toBe(1500);
    expect(timings?.connectMs).toBeGreaterThan(0);
    expect(timings?.dnsMs).toBe(0); // an IP address needs no lookup
    expect(timings?.ttfbMs).toBeGreaterThanOrEqual(timings?.connectMs ?? Infinity);
    expect((timings?.totalMs ?? 0) - (timings?.ttfbMs ?? Infinity)).toBeGreaterThan(heldMs - 1e-6);
    const sample = events.find((event) => event.type === 'sample');
    expect(sample?.timings).toEqual(timings);
    expect(sample?.rttMs).toBeGreaterThan(heldMs - 1e-6);
    const fresh: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const again = await client.fetch(server.url);
      await again.arrayBuffer();
      fresh.push((ratewiseTimings(again)?.connectMs ?? 0) > 0);
    }
    // undici opens a second connection before it reuses the first; reused ones show no handshake.
    expect(fresh).toContain(false);
  });

  it('holds the scope slot until the body has been downloaded', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 120);
    server = await startServer((_req, res) => res.end(big));
    client = createClient();
    const response = await client.fetch(server.url);
    const controller = client.registry.get(scopeOf(server.url));
    const info = ratewiseInfo(response);
    await waitFor(() => (info?.timings().bytes ?? 0) >= 65_536); // the download pauses: nobody reads
    expect(info?.timings().bytes).toBeLessThan(big.length);
    expect(controller?.inflight).toBe(1);
    expect((await response.arrayBuffer()).byteLength).toBe(big.length);
    await ratewiseInfo(response)?.settled;
    expect(controller?.inflight).toBe(0);
  });

  it('frees the slot when the body is cancelled', async () => {
    server = await startServer((_req, res) => res.end(Buffer.alloc(4 * 1024 * 1024)));
    client = createClient();
    const response = await client.fetch(server.url);
    await response.body?.cancel();
    await ratewiseInfo(response)?.settled;
    expect(client.registry.get(scopeOf(server.url))?.inflight).toBe(0);
  });

  it('hands a sniffed 403 block page over whole and classifies it as blocked', async () => {
    const page = `<html><title>Attention Required!</title>${'x'.repeat(20_000)}captcha</html>`;
    server = await startServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html' });
      res.end(page);
    });
    const events: ControlEvent[] = [];
    client = createClient({ events: (event) => events.push(event) });
    const response = await client.fetch(server.url);
    expect(response.status).toBe(403);
    expect(await response.text()).toBe(page);
    expect(ratewiseInfo(response)?.signal.kind).toBe('blocked');
    expect(ratewiseInfo(response)?.attempts).toBe(1);
    expect(events.some((event) => event.type === 'blocked')).toBe(true);
  });

  it('uses the caller context with a context resolver', async () => {
    const { byContext } = await import('../../src/controller/resolvers.js');
    server = await startServer((_req, res) => res.end('ok'));
    client = createClient({ scope: byContext('session') });
    const response = await client.fetch(server.url, { ratewise: { context: { session: 'p7' } } });
    await response.text();
    expect(ratewiseInfo(response)?.scopes).toEqual(['session:p7']);
    expect(client.registry.get('session:p7')).toBeDefined();
  });

  it('rejects non-http URLs like fetch, with a TypeError', async () => {
    client = createClient();
    await expect(client.fetch('ftp://example.com/x')).rejects.toThrow(TypeError);
    await expect(client.fetch('not a url')).rejects.toThrow(/invalid URL/);
  });
});
