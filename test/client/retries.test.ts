import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RatewiseClient } from '../../src/client/client.js';
import { ratewiseInfo } from '../../src/client/response-info.js';
import { RetryAfterTooLongError } from '../../src/errors.js';
import type { ControlEvent } from '../../src/events/event.js';
import { fastClock, startServer, type TestServer } from './helpers.js';

/** Virtual ms per real ms: a 1 s Retry-After takes 50 ms. */
const SPEED = 20;
let server: TestServer | undefined;
let client: RatewiseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A server answering the first request with `first` and later ones with 200. */
async function throttleOnce(status: number, headers: () => Record<string, string>) {
  server = await startServer((_req, res, index) => {
    if (index === 0) res.writeHead(status, headers());
    res.end(index === 0 ? 'slow down' : 'ok');
  });
  return server;
}

const gapMs = (s: TestServer) => (s.seen[1]?.at ?? Infinity) - (s.seen[0]?.at ?? 0);
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe('retries honour each Retry-After form', () => {
  it('delta-seconds: waits that long, then succeeds', async () => {
    const s = await throttleOnce(429, () => ({ 'retry-after': '1' }));
    client = createClient({ clock: fastClock(SPEED) });
    const response = await client.fetch(s.url);
    expect(await response.text()).toBe('ok');
    expect(ratewiseInfo(response)?.attempts).toBe(2);
    expect(gapMs(s)).toBeGreaterThanOrEqual(1000 / SPEED - 5);
  });

  it('HTTP-date: waits until that date, read against the Date header', async () => {
    const s = await throttleOnce(429, () => {
      const now = Math.floor(Date.now() / 1000) * 1000;
      return { date: httpDate(now), 'retry-after': httpDate(now + 2000) };
    });
    client = createClient({ clock: fastClock(SPEED) });
    const response = await client.fetch(s.url);
    expect(response.status).toBe(200);
    expect(ratewiseInfo(response)?.attempts).toBe(2);
    expect(gapMs(s)).toBeGreaterThanOrEqual(2000 / SPEED - 5);
  });

  it('0: still a pause, then a retry', async () => {
    const s = await throttleOnce(429, () => ({ 'retry-after': '0' }));
    const events: ControlEvent[] = [];
    client = createClient({ clock: fastClock(SPEED), events: (e) => events.push(e) });
    const response = await client.fetch(s.url);
    expect(response.status).toBe(200);
    expect(ratewiseInfo(response)?.attempts).toBe(2);
    expect(events.filter((e) => e.type === 'sample').map((e) => e.status)).toEqual([429, 200]);
    const pause = events.find((e) => e.type === 'pause');
    const pausedMs = Number(/paused (\d+) ms/.exec(pause?.reason ?? '')?.[1]);
    expect(pausedMs).toBeGreaterThan(0); // "retry now" is not taken as "no pause"
    expect(gapMs(s)).toBeGreaterThanOrEqual(pausedMs / SPEED - 5);
  });

  it('missing: the controller paces the retry', async () => {
    const s = await throttleOnce(429, () => ({}));
    client = createClient({ clock: fastClock(SPEED) });
    const response = await client.fetch(s.url);
    expect(response.status).toBe(200);
    expect(ratewiseInfo(response)?.attempts).toBe(2);
  });

  it('beyond maxRetryAfterMs: fails fast instead of sleeping', async () => {
    const s = await throttleOnce(429, () => ({ 'retry-after': '3600' }));
    client = createClient({ retry: { maxRetryAfterMs: 60_000 } });
    await expect(client.fetch(s.url)).rejects.toBeInstanceOf(RetryAfterTooLongError);
    expect(s.seen).toHaveLength(1);
  });
});

describe('retry policy', () => {
  it('retries a server error after a jittered backoff and returns the last response when out of attempts', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(500);
      res.end('broken');
    });
    client = createClient({ clock: fastClock(SPEED), retry: { maxAttempts: 3 } });
    const response = await client.fetch(server.url);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('broken');
    expect(ratewiseInfo(response)?.attempts).toBe(3);
    expect(server.seen).toHaveLength(3);
  });

  it('does not retry a POST that failed with a 500, but does after a 429', async () => {
    server = await startServer((req, res, index) => {
      res.writeHead(req.url === '/a' ? 500 : index === 1 ? 429 : 200, { 'retry-after': '0' });
      res.end();
    });
    client = createClient({ clock: fastClock(SPEED) });
    const failed = await client.fetch(`${server.url}/a`, { method: 'POST', body: 'x' });
    expect(failed.status).toBe(500);
    expect(ratewiseInfo(failed)?.attempts).toBe(1);
    const throttled = await client.fetch(`${server.url}/b`, { method: 'POST', body: 'x' });
    expect(throttled.status).toBe(200);
    expect(ratewiseInfo(throttled)?.attempts).toBe(2);
  });

  it('stops retrying when the scope has spent its retry budget', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    client = createClient({
      clock: fastClock(SPEED),
      retry: { maxAttempts: 6 },
      retryBudget: { reserve: 2, ratio: 0 },
    });
    const first = await client.fetch(server.url);
    const second = await client.fetch(server.url);
    expect(ratewiseInfo(first)?.attempts).toBe(3);
    expect(ratewiseInfo(second)?.attempts).toBe(1);
  });
});

describe('breaker', () => {
  it('opens on a failure (a reset), lets one probe through half-open, and closes on its success', async () => {
    server = await startServer((req, res, index) => {
      if (index === 0) {
        req.socket.destroy(); // a reset: a failure (a 429 is a refusal, no strike)
        return;
      }
      res.writeHead(200);
      res.end();
    });
    const events: ControlEvent[] = [];
    client = createClient({
      clock: fastClock(SPEED),
      events: (e) => events.push(e),
      retry: { maxAttempts: 1 },
      breaker: { threshold: 1, cooldownMs: 2000, jitter: 0 },
    });
    await expect(client.fetch(server.url)).rejects.toThrow();
    const scope = client.registry.get(`host:${new URL(server.url).host}`);
    expect(scope?.breaker).toBe('open');
    const probe = await client.fetch(server.url);
    expect(probe.status).toBe(200);
    expect(scope?.breaker).toBe('closed');
    expect(gapMs(server)).toBeGreaterThanOrEqual(2000 / SPEED - 5);
    const states = events.filter((e) => e.type === 'breaker').map((e) => e.breaker);
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });
});
