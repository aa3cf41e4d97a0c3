import { afterEach, describe, expect, it } from 'vitest';
import { BreakerPolicy } from '../../src/algorithms/breaker-policy.js';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { RetryAfterTooLongError, ScopePausedError } from '../../src/errors.js';
import type { ControlEvent } from '../../src/events/event.js';
import { seededRandom } from '../../src/random.js';
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

const FIVE_MINUTES = 300_000;

function scopeOf(c: RatewiseClient, url: string) {
  return c.registry.get(`host:${new URL(url).host}`);
}

describe('one response cannot pause a host for a day', () => {
  it('Retry-After: 99999999 pauses the scope 5 minutes at most; the next request fails at once, saying until when and why', async () => {
    hostile = await startHostileServer();
    const clock = new VirtualClock();
    const events: ControlEvent[] = [];
    client = createClient({ clock, events: (event) => events.push(event) });
    const url = `${hostile.url}/retry-after?value=99999999`;
    await expect(client.fetch(url)).rejects.toThrow(RetryAfterTooLongError);
    const pause = scopeOf(client, url)?.pause;
    expect(pause?.until).toBeGreaterThan(clock.now() + FIVE_MINUTES - 1);
    expect(pause?.until).toBeLessThanOrEqual(clock.now() + FIVE_MINUTES * 1.2); // breaker jitter
    const next = await within(
      client.fetch(`${hostile.url}/retry-after?value=1`).catch((e: unknown) => e),
      2000,
    );
    expect(next).toBeInstanceOf(ScopePausedError);
    const paused = next as ScopePausedError;
    expect(paused.until).toBe(clock.wallNow() + ((pause?.until ?? 0) - clock.now()));
    expect(paused.message).toMatch(
      /is paused until \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ s from now\) after 429 with Retry-After 86400 s, capped at 300 s \(maxPauseMs\)/,
    );
    expect(paused.message).toMatch(/retry\.maxRetryAfterMs/);
    expect(hostile.hits.get('/retry-after')).toBe(1); // the second was never sent
    const logged = events.find((event) => event.type === 'pause');
    expect(logged?.reason).toMatch(/^paused 300000 ms on 429 with Retry-After 86400 s, capped/);
  });

  it('a later request that may wait longer waits the capped pause out, then goes', async () => {
    server = await startServer((_req, res, index) =>
      index === 0 ? res.writeHead(429, { 'retry-after': '99999999' }).end() : res.end('ok'),
    );
    const clock = new VirtualClock();
    client = createClient({ clock, retry: { maxRetryAfterMs: 3_600_000 } });
    // The server asked this one for a day, more than it allows: it fails fast, as before.
    await expect(client.fetch(server.url)).rejects.toThrow(RetryAfterTooLongError);
    let done = false;
    const answered = client.fetch(server.url).then(async (response) => {
      done = true;
      return response.text();
    });
    while (!done && clock.now() < 2 * FIVE_MINUTES) {
      await clock.advance(5000);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await answered).toBe('ok');
    expect(clock.now()).toBeGreaterThanOrEqual(FIVE_MINUTES);
    expect(clock.now()).toBeLessThanOrEqual(FIVE_MINUTES * 1.2 + 5000);
    expect(server.seen).toHaveLength(2);
  });

  it('a 200 with X-RateLimit-Remaining 0 and a reset a day away: the next request fails at once', async () => {
    hostile = await startHostileServer();
    const clock = new VirtualClock();
    client = createClient({ clock });
    const url = `${hostile.url}/quota-exhausted?reset=86400`;
    const response = await client.fetch(url);
    expect(response.status).toBe(200);
    await response.text();
    const next = await within(
      client.fetch(url).catch((e: unknown) => e),
      2000,
    );
    expect(next).toBeInstanceOf(ScopePausedError);
    expect(String(next)).toMatch(/quota spent \(200\), resets in 86400 s, capped at 300 s/);
    expect(hostile.hits.get('/quota-exhausted')).toBe(1);
  });

  it('requests already waiting when the long pause begins fail then, without being sent', async () => {
    server = await startServer((_req, res, index) => {
      if (index === 0)
        setTimeout(() => res.writeHead(429, { 'retry-after': '99999999' }).end(), 50);
      else res.end('ok');
    });
    client = createClient({ maxConcurrency: 1, initialConcurrency: 1 });
    const first = client.fetch(server.url).catch((e: unknown) => e);
    await waitFor(() => server?.seen.length === 1);
    const queued = [1, 2, 3].map(() => client?.fetch(server?.url ?? '').catch((e: unknown) => e));
    expect(await first).toBeInstanceOf(RetryAfterTooLongError);
    for (const outcome of await Promise.all(queued))
      expect(outcome).toBeInstanceOf(ScopePausedError);
    expect(server.seen).toHaveLength(1);
  });
});

describe('the breaker', () => {
  it('stays open no longer than maxCooldownMs (plus jitter), whatever the Retry-After', () => {
    const policy = new BreakerPolicy(seededRandom(3), { maxCooldownMs: 60_000, jitter: 0 });
    policy.onOutcome({
      sentAt: 0,
      at: 10,
      effect: 'failure',
      probe: false,
      retryAfterMs: 86_400_000,
    });
    expect(policy.stateAt(10)).toBe('open');
    expect(policy.openUntil).toBe(60_010);
  });
});
