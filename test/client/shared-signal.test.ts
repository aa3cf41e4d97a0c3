import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { startServer, type TestServer, waitFor } from './helpers.js';

let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** Collects the process warnings emitted while `run` runs. */
async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('many requests sharing one AbortSignal', () => {
  it('adds one abort listener to it, not one per request: no MaxListenersExceededWarning', async () => {
    const held: (() => void)[] = [];
    server = await startServer((_req, res) => held.push(() => res.end('ok')));
    // 20 in flight at once, 20 more parked for admission, all on one signal.
    client = createClient({ maxConcurrency: 20, initialConcurrency: 20 });
    const shared = new AbortController();
    const warnings = await warningsDuring(async () => {
      const fetches = Array.from({ length: 40 }, (_, i) =>
        client?.fetch(`${server?.url}/${i}`, { signal: shared.signal }),
      );
      await waitFor(() => held.length === 20);
      expect(getEventListeners(shared.signal, 'abort').length).toBeLessThanOrEqual(1);
      for (;;) {
        const release = held.shift();
        if (release === undefined) {
          if (held.length === 0 && server?.seen.length === 40) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        release();
      }
      for (const response of await Promise.all(fetches)) await response?.text();
    });
    expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('still cancels every one of them when it aborts', async () => {
    server = await startServer(() => {}); // never answers
    client = createClient({ maxConcurrency: 4, initialConcurrency: 4 });
    const shared = new AbortController();
    const fetches = Array.from({ length: 12 }, (_, i) =>
      client?.fetch(`${server?.url}/${i}`, { signal: shared.signal }),
    );
    await waitFor(() => server?.seen.length === 4);
    shared.abort(new Error('enough'));
    const settled = await Promise.allSettled(fetches);
    expect(settled.map((s) => (s.status === 'rejected' ? String(s.reason) : 'ok'))).toEqual(
      Array(12).fill('Error: enough'),
    );
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });
});
