import got from 'got';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { type RatewiseGot, ratewiseGot } from '../../src/integrations/got.js';
import { seededRandom } from '../../src/random.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { fastClock, type TestServer, waitFor } from '../client/helpers.js';
import { eventLog, RETRY_AFTER_FORMS, startScriptedServer } from './scripted-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

function setup() {
  const log = eventLog();
  const ratewise = ratewiseGot({
    clock: fastClock(10),
    random: seededRandom(1),
    backoff: fullJitter({ baseMs: 10, capMs: 20 }),
    events: log.sink,
  });
  const client = got.extend({ prefixUrl: server.url }, ratewise.options);
  return { ratewise, client, log };
}

function inflight(ratewise: RatewiseGot): number {
  let total = 0;
  for (const controller of ratewise.registry.controllers()) total += controller.inflight;
  return total;
}

const hits = (path: string) => server.seen.filter((r) => r.path === path).length;
const samples = (log: ReturnType<typeof eventLog>) => log.events.filter((e) => e.type === 'sample');

describe('ratewise/got', () => {
  for (const form of Object.keys(RETRY_AFTER_FORMS)) {
    it(`retries a 429 with Retry-After as ${form} once the scope's pause is over`, async () => {
      const { ratewise, client, log } = setup();
      const path = `/429/${form}/got`;
      const response = await client(path.slice(1));
      expect(response.statusCode).toBe(200);
      expect(hits(path)).toBe(2);
      expect(log.events.find((e) => e.type === 'pause')?.reason).toMatch(/^paused \d+ ms on 429/);
      const [first, second] = samples(log);
      expect([first?.status, second?.status]).toEqual([429, 200]);
      expect(inflight(ratewise)).toBe(0);
      await ratewise.close();
    });
  }

  it("the retry waits in admission until the scope's pause is over (virtual clock)", async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const ratewise = ratewiseGot({ clock });
    const client = got.extend({ prefixUrl: server.url }, ratewise.options);
    const pending = client('429/seconds/got-virtual');
    const scope = () => ratewise.registry.get(`host:${new URL(server.url).host}`);
    await waitFor(() => scope()?.queued === 1);
    expect(hits('/429/seconds/got-virtual')).toBe(1); // got's own delay was 1 ms: it waits here
    await clock.advance(999);
    expect(hits('/429/seconds/got-virtual')).toBe(1);
    await clock.advance(1);
    expect((await pending).statusCode).toBe(200);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('retries a 503 and a reset, each attempt reported once', async () => {
    const { ratewise, client, log } = setup();
    expect((await client('503/got')).statusCode).toBe(200);
    expect((await client('reset/got')).statusCode).toBe(200);
    expect(samples(log).map((e) => e.signal)).toEqual(['overloaded', 'ok', 'reset', 'ok']);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('reports a final HTTP error once, when got gives up', async () => {
    const { ratewise, client, log } = setup();
    const limited = client.extend({ retry: { limit: 0 } });
    await expect(limited('503/got-final')).rejects.toMatchObject({ name: 'HTTPError' });
    expect(samples(log).map((e) => e.status)).toEqual([503]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it("reports got's timeout as a timeout", async () => {
    const { ratewise, client, log } = setup();
    const request = client('hang/got-timeout', { timeout: { request: 50 }, retry: { limit: 0 } });
    await expect(request).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(samples(log).map((e) => e.signal)).toEqual(['timeout']);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('releases an aborted attempt without an outcome', async () => {
    const { ratewise, client, log } = setup();
    const controller = new AbortController();
    const pending = client('hang/got-abort', { signal: controller.signal });
    await waitFor(() => hits('/hang/got-abort') === 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(samples(log)).toEqual([]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('admits and reports every hop of a redirect chain', async () => {
    const { ratewise, client, log } = setup();
    const response = await client('redirect/3/got');
    expect(response.statusCode).toBe(200);
    expect(samples(log).map((e) => e.status)).toEqual([302, 302, 302, 200]);
    expect(inflight(ratewise)).toBe(0);
    await ratewise.close();
  });

  it('reports a streamed 429 at its head, before its body is over', async () => {
    const { ratewise, client, log } = setup();
    const stream = client.stream('slow-429/got', { throwHttpErrors: false });
    const response = await new Promise<{ statusCode: number }>((resolve) =>
      stream.once('response', resolve),
    );
    expect(response.statusCode).toBe(429);
    expect(samples(log).map((e) => e.status)).toEqual([429]);
    expect(inflight(ratewise)).toBe(0);
    stream.destroy();
    await ratewise.close();
  });

  it('holds a streamed body until it is destroyed half-way', async () => {
    const { ratewise, client, log } = setup();
    const stream = client.stream('big/got');
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    expect(inflight(ratewise)).toBe(1);
    stream.destroy();
    await waitFor(() => inflight(ratewise) === 0);
    expect(samples(log).map((e) => e.status)).toEqual([200]);
    await ratewise.close();
  });

  it('rejects unknown options with the option named', () => {
    expect(() => ratewiseGot({ maxConcurency: 3 } as never)).toThrow(/maxConcurency/);
  });
});
