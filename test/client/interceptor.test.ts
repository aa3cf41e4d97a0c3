import { Readable } from 'node:stream';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { timedConnect } from '../../src/client/connection-timings.js';
import { ratewiseInterceptor } from '../../src/client/interceptor.js';
import type { ControlEvent } from '../../src/events/event.js';
import { fastClock, startServer, type TestServer, waitFor } from './helpers.js';

let server: TestServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  agent = undefined;
  server = undefined;
});

describe('ratewiseInterceptor', () => {
  it("puts undici's request under control: retried 429, timed phases, events", async () => {
    server = await startServer((_req, res, index) => {
      res.writeHead(index === 0 ? 429 : 200, { 'retry-after': '1' });
      res.end(index === 0 ? 'slow down' : 'hello');
    });
    const events: ControlEvent[] = [];
    agent = new Agent({ connect: timedConnect() });
    const interceptor = ratewiseInterceptor({
      clock: fastClock(20),
      events: (e) => events.push(e),
    });
    const dispatcher = agent.compose(interceptor);
    const { statusCode, body } = await request(server.url, { dispatcher });
    expect(statusCode).toBe(200);
    expect(await body.text()).toBe('hello');
    expect(server.seen).toHaveLength(2);
    const samples = events.filter((e) => e.type === 'sample');
    expect(samples.map((e) => e.status)).toEqual([429, 200]);
    expect(samples[0]?.timings?.connectMs).toBeGreaterThan(0);
    expect(interceptor.registry.get(`host:${new URL(server.url).host}`)?.inflight).toBe(0);
  });

  it('scopes a path that starts with // under the origin it is sent to, not the host in the path', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.end('ok');
    });
    const events: ControlEvent[] = [];
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ events: (e) => events.push(e) }));
    const { statusCode, body } = await request(`${server.url}//elsewhere.example/x`, {
      dispatcher,
    });
    await body.dump();
    expect(statusCode).toBe(200);
    expect(server.seen[0]?.path).toBe('//elsewhere.example/x');
    const scopes = new Set(events.map((e) => e.scope));
    expect([...scopes]).toEqual([`host:${new URL(server.url).host}`]);
  });

  it('does not retry a request whose body is a stream (it cannot be sent again)', async () => {
    server = await startServer((req, res) => {
      req.resume();
      res.writeHead(503);
      res.end();
    });
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ clock: fastClock(20) }));
    const { statusCode, body } = await request(server.url, {
      dispatcher,
      method: 'PUT',
      body: Readable.from(['a', 'b']),
    });
    await body.dump();
    expect(statusCode).toBe(503);
    expect(server.seen).toHaveLength(1);
  });

  it('passes an abort through as the rejection of request()', async () => {
    server = await startServer(() => {});
    agent = new Agent();
    const interceptor = ratewiseInterceptor();
    const controller = new AbortController();
    const pending = request(server.url, {
      dispatcher: agent.compose(interceptor),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(interceptor.registry.get(`host:${new URL(server.url).host}`)?.inflight).toBe(0);
  });

  it("works under undici's fetch: retried 429, body streamed", async () => {
    server = await startServer((_req, res, index) => {
      res.writeHead(index === 0 ? 429 : 200, { 'retry-after': '1' });
      res.end(index === 0 ? 'slow down' : 'hello');
    });
    agent = new Agent();
    const dispatcher = agent.compose(ratewiseInterceptor({ clock: fastClock(20) }));
    const response = await undiciFetch(server.url, { dispatcher });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
    expect(server.seen).toHaveLength(2);
  });

  it("undici's fetch: an abort while waiting for admission rejects at once and sends nothing", async () => {
    server = await startServer((req, res) => {
      if (req.url !== '/hang') res.end('ok');
    });
    agent = new Agent();
    const interceptor = ratewiseInterceptor({ maxConcurrency: 1, initialConcurrency: 1 });
    const dispatcher = agent.compose(interceptor);
    const scope = () => interceptor.registry.get(`host:${new URL(server?.url ?? '').host}`);
    const first = new AbortController();
    const hung = undiciFetch(`${server.url}/hang`, { dispatcher, signal: first.signal });
    await waitFor(() => server?.seen.length === 1);
    const second = new AbortController();
    const queued = undiciFetch(`${server.url}/queued`, { dispatcher, signal: second.signal });
    await waitFor(() => scope()?.queued === 1);
    second.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    expect(scope()?.queued).toBe(0);
    first.abort();
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' });
    expect(scope()?.inflight).toBe(0);
    expect(server.seen.map((seen) => seen.path)).toEqual(['/hang']);
  });
});
