import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { type HostileServer, startHostileServer } from '../../src/testing/hostile-server.js';
import { startServer, waitFor } from './helpers.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let hostile: HostileServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await hostile?.close();
  client = undefined;
  hostile = undefined;
});

/** Fetches `url` and drops the response without touching its body. */
async function fetchAndDrop(url: string): Promise<void> {
  const response = await (client as RatewiseClient).fetch(url);
  expect(response.status).toBe(200);
}

describe('a response dropped with its body unread', () => {
  it('gives its place back once garbage-collected, so the scope is not held for good', async () => {
    hostile = await startHostileServer();
    client = createClient({ maxConcurrency: 1 });
    const { registry } = client;
    // Bodies larger than the client's queue: the download pauses, waiting for a reader.
    for (let i = 0; i < 3; i++) {
      await fetchAndDrop(`${hostile.url}/chunked?bytes=4000000&n=${i}`);
      await waitFor(() => {
        gc();
        return registry.get(`host:${new URL(hostile?.url ?? '').host}`)?.inflight === 0;
      }, 5000);
    }
    expect(hostile.hits.get('/chunked')).toBe(3);
  });

  it('gives its place back when the Response is collected before the download first pauses', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('first');
      setTimeout(() => res.end(Buffer.alloc(4_000_000)), 200); // the rest after the drop
    });
    client = createClient({ maxConcurrency: 1 });
    const scope = `host:${new URL(server.url).host}`;
    const { registry } = client;
    try {
      for (let i = 0; i < 2; i++) {
        await fetchAndDrop(`${server.url}/${i}`);
        for (let j = 0; j < 5; j++) gc(); // the Response goes while the body has not paused yet
        await waitFor(() => {
          gc();
          return registry.get(scope)?.inflight === 0;
        }, 5000);
      }
      expect(server.seen).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('is not cancelled while the response is kept, read later, or read slowly', async () => {
    hostile = await startHostileServer();
    client = createClient();
    const kept = await client.fetch(`${hostile.url}/chunked?bytes=2000000`);
    const reading = await client.fetch(`${hostile.url}/chunked?bytes=2000000&n=1`);
    const reader = reading.body?.getReader();
    await reader?.read();
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await kept.arrayBuffer()).byteLength).toBe(2_000_000);
    let bytes = 0;
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      bytes += chunk.value.byteLength;
    }
    expect(bytes).toBeGreaterThan(1_900_000);
  });
});
