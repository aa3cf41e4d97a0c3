import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import type { CancelTimer, Clock } from '../../src/clock.js';
import { sleepOn } from '../../src/clock.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A virtual clock whose reading can be set back, as a wall clock corrected by NTP is. */
class JumpingClock implements Clock {
  readonly virtual = new VirtualClock({ start: 10_000_000 });
  offset = 0;
  /** Moves the wall clock alone, as setting the system clock does (`performance.now` goes on). */
  wallOffset = 0;
  now(): number {
    return this.virtual.now() + this.offset;
  }
  wallNow(): number {
    return this.virtual.wallNow() + this.offset + this.wallOffset;
  }
  setTimer(ms: number, callback: () => void): CancelTimer {
    return this.virtual.setTimer(ms, callback);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** Runs the virtual clock for `ms`, letting real I/O have its turn. */
async function run(clock: JumpingClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 50) {
    await clock.virtual.advance(50);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Fetches `url`, running the virtual clock meanwhile; the virtual ms it took. */
async function timedFetch(
  c: RatewiseClient,
  clock: JumpingClock,
  url: string,
  { limitMs = 5000, stepMs = 10 } = {},
): Promise<number> {
  const start = clock.virtual.now();
  let done = false;
  const fetching = c
    .fetch(url)
    .then((response) => response.text())
    .finally(() => {
      done = true;
    });
  fetching.catch(() => {}); // awaited below once done
  while (!done && clock.virtual.now() - start < limitMs) {
    await clock.virtual.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 1)); // real I/O gets its turn
  }
  if (!done) return Infinity; // stalled (the fetch is cancelled by close())
  await fetching;
  return clock.virtual.now() - start;
}

describe('a clock that jumps backward', () => {
  it('does not stall admission: pacing carries on from where time was', async () => {
    server = await startServer((_req, res) => res.end('ok'));
    const clock = new JumpingClock();
    client = createClient({ clock, rate: 10 }); // one request every 100 ms
    for (let i = 0; i < 3; i++) await timedFetch(client, clock, server.url);
    clock.offset = -3_600_000; // an hour back
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) waits.push(await timedFetch(client, clock, server.url));
    expect(Math.max(...waits)).toBeLessThanOrEqual(200);
    expect(server.seen).toHaveLength(6);
  });
});

describe('a wall clock set back (the system clock corrected by an hour)', () => {
  it('does not stall a scope restored from its saved state: no pause comes back longer', async () => {
    server = await startServer((req, res) => {
      if (req.headers.host?.startsWith('127.0.0.1') && server?.seen.length === 1) {
        res.writeHead(429, { 'retry-after': '20' });
        res.end('slow down');
      } else res.end('ok');
    });
    const clock = new JumpingClock();
    client = createClient({ clock, idleMs: 1000, retry: { maxAttempts: 1 } });
    expect((await client.fetch(server.url)).status).toBe(429); // 127.0.0.1 paused 20 s
    await run(clock, 3000);
    const scope = `host:${new URL(server.url).host}`;
    // What the scope has left to wait: the Retry-After's pause, or the breaker's open time.
    const controller = client.registry.get(scope);
    const openUntil = controller?.snapshot().breaker?.openUntil ?? 0; // wall-clock ms
    const leftMs = Math.max(controller?.pauseLeftMs ?? 0, openUntil - clock.wallNow());
    expect(leftMs).toBeGreaterThan(10_000);
    // Another host's request sweeps the idle scope out, saving its state.
    await timedFetch(client, clock, server.url.replace('127.0.0.1', 'localhost'));
    expect([...client.registry.controllers()].map((c) => c.scope)).not.toContain(scope);
    clock.wallOffset = -3_600_000;
    // Restored after the clock went back an hour, the pause read 3,625 s: the request failed with
    // ScopePausedError, and so did every other for an hour. It waits at most what was left.
    const wait = await timedFetch(client, clock, server.url, { limitMs: 60_000, stepMs: 100 });
    expect(wait).toBeLessThanOrEqual(leftMs + 200);
    expect(server.seen.filter((seen) => seen.headers.host?.startsWith('127.0.0.1'))).toHaveLength(
      2,
    );
  });
});
