import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { ratewiseInfo } from '../../src/client/response-info.js';
import { RedirectError } from '../../src/errors.js';
import type { ControlEvent } from '../../src/events/event.js';
import { startServer, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  client = undefined;
});

async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function echo(): Parameters<typeof startServer>[0] {
  return (req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () =>
      res.end(
        JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }),
      ),
    );
  };
}

describe('redirects', () => {
  it('follows a redirect to another host, admitting each hop under its own scope', async () => {
    const target = await serve(echo());
    const origin = await serve((_req, res) => {
      res.writeHead(302, { location: `${target.url}/end` });
      res.end('moved');
    });
    const events: ControlEvent[] = [];
    client = createClient({ events: (e) => events.push(e) });
    const response = await client.fetch(`${origin.url}/start`, {
      headers: { authorization: 'secret' },
    });
    expect(response.url).toBe(`${target.url}/end`);
    expect(response.redirected).toBe(true);
    expect(JSON.parse(await response.text())).toEqual({ method: 'GET', body: '', auth: null });
    expect(ratewiseInfo(response)).toMatchObject({ redirects: 1, attempts: 1 });
    const sampled = events.filter((e) => e.type === 'sample').map((e) => [e.scope, e.status]);
    expect(sampled).toEqual([
      [`host:${new URL(origin.url).host}`, 302],
      [`host:${new URL(target.url).host}`, 200],
    ]);
  });

  it('turns a POST into a GET on 303 and replays it on 307', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/see-other' || req.url === '/temporary') {
        req.resume();
        res.writeHead(req.url === '/see-other' ? 303 : 307, { location: '/echo' });
        res.end();
        return;
      }
      echo()(req, res, 0);
    });
    const c = createClient();
    client = c;
    const post = async (path: string) =>
      JSON.parse(
        await (await c.fetch(`${server.url}${path}`, { method: 'POST', body: 'payload' })).text(),
      );
    expect(await post('/see-other')).toMatchObject({ method: 'GET', body: '' });
    expect(await post('/temporary')).toMatchObject({ method: 'POST', body: 'payload' });
  });

  it('fails with RedirectError after maxRedirects hops', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    });
    client = createClient({ maxRedirects: 3 });
    await expect(client.fetch(`${server.url}/loop`)).rejects.toThrow(RedirectError);
    expect(server.seen).toHaveLength(4);
    expect(client.registry.get(`host:${new URL(server.url).host}`)?.inflight).toBe(0);
  });

  it('fails at once on a permanent redirect of a request to itself, an endless loop', async () => {
    const server = await serve((req, res) => {
      // `Location: ""` is the URL itself; /a moves to /b for good, and /b to itself.
      res.writeHead(301, { location: req.url === '/a' ? '/b' : '' });
      res.end('moved');
    });
    client = createClient();
    await expect(client.fetch(`${server.url}/self`)).rejects.toThrow(
      /permanent redirect \(301\) to itself/,
    );
    expect(server.seen).toHaveLength(1);
    await expect(client.fetch(`${server.url}/a`)).rejects.toThrow(RedirectError);
    expect(server.seen).toHaveLength(3); // /self, /a, /b — not 20 more hops of /b
    expect(client.registry.get(`host:${new URL(server.url).host}`)?.inflight).toBe(0);
  });

  it("returns the redirect itself with redirect: 'manual' and fails with redirect: 'error'", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    client = createClient();
    const manual = await client.fetch(server.url, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/elsewhere');
    await expect(client.fetch(server.url, { redirect: 'error' })).rejects.toThrow(
      /redirect: 'error'/,
    );
  });
});
