import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { byContext } from '../../src/controller/resolvers.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { ScopeState } from '../../src/store/store.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { startServer, type TestServer } from '../client/helpers.js';

const state = (n: number): ScopeState => ({
  limit: { n },
  rate: {},
  savedAt: 0,
});

describe('MemoryStore', () => {
  it('keeps at most 10,000 states by default, forgetting the least recently used', async () => {
    const store = new MemoryStore();
    for (let i = 0; i < 10_000; i++) await store.save(`host:${i}`, state(i));
    expect(await store.load('host:0')).toMatchObject({ limit: { n: 0 } }); // used again: newest
    for (let i = 10_000; i < 25_000; i++) await store.save(`host:${i}`, state(i));
    expect(store.size).toBe(10_000);
    expect(await store.load('host:1')).toBeUndefined();
    expect(await store.load('host:24999')).toMatchObject({ limit: { n: 24_999 } });
  });

  it('forgets a state unused for ttlMs (1 hour by default)', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock });
    await store.save('host:a', state(1));
    await store.save('host:b', state(2));
    await clock.advance(3_000_000);
    expect(await store.load('host:a')).toBeDefined(); // used: its hour starts again
    await clock.advance(1_000_000);
    expect(await store.load('host:b')).toBeUndefined();
    expect(await store.load('host:a')).toBeDefined();
    expect(store.size).toBe(1);
  });

  it('validates its options by name', () => {
    expect(() => new MemoryStore({ maxEntries: 0 })).toThrow(/`maxEntries` must be/);
    expect(() => new MemoryStore({ ttlMs: -1 })).toThrow(/`ttlMs` must be/);
  });
});

describe('memory across many scopes through createClient', () => {
  let server: TestServer | undefined;
  let client: RatewiseClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  it('idleMs evicts idle scopes and the store keeps a bounded number of them', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock, maxEntries: 50 });
    client = createClient({ clock, idleMs: 1000, store, scope: byContext('session') });
    for (let wave = 0; wave < 4; wave++) {
      const fetches = Array.from({ length: 100 }, (_, i) =>
        client?.fetch(server?.url ?? '', { ratewise: { context: { session: `s${wave}-${i}` } } }),
      );
      for (const response of await Promise.all(fetches)) await response?.text();
      await clock.advance(1000);
      await client.registry.sweep();
      expect(client.registry.size).toBe(0);
      expect(store.size).toBeLessThanOrEqual(50);
    }
    expect(() => createClient({ idleMs: -5 })).toThrow(/createClient: option `idleMs`/);
  });
});
