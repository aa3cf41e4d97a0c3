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
  now(): number {
    return this.virtual.now() + this.offset;
  }
  wallNow(): number {
    return this.virtual.wallNow() + this.offset;
  }
  setTimer(ms: number, callback: () => void): CancelTimer {
    return this.virtual.setTimer(ms, callback);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** Fetches `url`, running the virtual clock meanwhile; the virtual ms it took. */
async function timedFetch(c: RatewiseClient, clock: JumpingClock, url: string): Promise<number> {
  const start = clock.virtual.now();
  let done = false;
  const fetching = c.fetch(url).then(async (response) => {
    await response.text();
    done = true;
  });
  while (!done && clock.virtual.now() - start < 5000) {
    await clock.virtual.advance(10);
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
