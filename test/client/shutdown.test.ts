import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { startServer, type TestServer, waitFor, within } from './helpers.js';

let hostile: HostileServer | undefined;
let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await hostile?.close();
  await server?.close();
  client = undefined;
  hostile = undefined;
  server = undefined;
});

const CLOSED = { code: 'ERR_RATEWISE_CLOSED' };

describe('close()', () => {
  it('cancels a request in flight at once instead of waiting for its headers timeout', async () => {
    hostile = await startHostileServer();
    client = createClient();
    const hung = client.fetch(`${hostile.url}/hang`).catch((error: unknown) => error);
    await waitFor(() => hostile?.hits.get('/hang') === 1);
    expect(await within(client.close(), 5000)).toBeUndefined();
    expect(await within(hung, 1000)).toMatchObject(CLOSED);
  });

  it('fails a body still downloading, and frees its scope', async () => {
    hostile = await startHostileServer();
    client = createClient();
    const response = await client.fetch(`${hostile.url}/chunked`); // endless
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    expect(await within(client.close(), 5000)).toBeUndefined();
    const reading = (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })().catch((error: unknown) => error);
    expect(await within(reading, 1000)).toMatchObject(CLOSED);
    expect(client.registry.size).toBe(0);
  });

  it('ends a retry waiting out its backoff, leaving no timer behind', async () => {
    server = await startServer((_req, res) => res.writeHead(500).end('broken'));
    const clock = new VirtualClock();
    client = createClient({ clock });
    const retrying = client.fetch(server.url).catch((error: unknown) => error);
    await waitFor(() => server?.seen.length === 1);
    await waitFor(() => clock.pendingTimers > 0); // the backoff sleep
    await client.close();
    expect(await within(retrying, 1000)).toMatchObject(CLOSED);
    expect(clock.pendingTimers).toBe(0);
    expect(server.seen).toHaveLength(1);
  });

  it('a fetch after close() fails with ERR_RATEWISE_CLOSED and creates no scope', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    client = createClient();
    await (await client.fetch(server.url)).text();
    await client.close();
    await expect(client.fetch(server.url)).rejects.toMatchObject({
      ...CLOSED,
      message: expect.stringMatching(/closed/),
    });
    expect(client.registry.size).toBe(0);
    expect(server.seen).toHaveLength(1);
  });
});

describe('a response head larger than undici accepts', () => {
  it('fails once, not retried as a server error', async () => {
    hostile = await startHostileServer();
    client = createClient();
    await expect(client.fetch(`${hostile.url}/huge-headers?bytes=65536`)).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_OVERFLOW',
    });
    expect(hostile.hits.get('/huge-headers')).toBe(1);
  });
});
