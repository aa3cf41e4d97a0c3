import { type ClientRequest, Agent as HttpAgent, get as httpGet } from 'node:http';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockModel } from '../../src/sim/models/block.js';
import { CAPTCHA_MARKER } from '../../src/sim/models/block-page.js';
import { FixedWindowModel } from '../../src/sim/models/fixed-window.js';
import { HealthyModel } from '../../src/sim/models/healthy.js';
import type { ServerModel } from '../../src/sim/models/model.js';
import { CLIENT_HEADER, type MockServer, startMockServer } from '../../src/testing/mock-server.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(model: ServerModel, extra: { dripIntervalMs?: number } = {}) {
  const server = await startMockServer({ model, ...extra });
  servers.push(server);
  return server;
}

/** Counts `finish` calls per request id, to prove each arrival finishes exactly once. */
function counting(model: ServerModel): ServerModel & { finishes: Map<number, number> } {
  const finishes = new Map<number, number>();
  return {
    name: model.name,
    finishes,
    arrive: (request) => model.arrive(request),
    finish(request, at) {
      finishes.set(request.id, (finishes.get(request.id) ?? 0) + 1);
      model.finish?.(request, at);
    },
    capacity: (at) => model.capacity(at),
  };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('startMockServer', () => {
  it('serves the model on 127.0.0.1: statuses, Retry-After, Date, Content-Length, stats', async () => {
    const server = await start(new FixedWindowModel({ rate: 3, latencyMs: 30 }));
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const replies = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const res = await request(`${server.url}/item`);
        return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
      }),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const rejected = replies.find((r) => r.status === 429);
    expect(rejected?.headers['retry-after']).toBe('1');
    for (const reply of replies) {
      expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
      expect(Math.abs(Date.parse(String(reply.headers.date)) - Date.now())).toBeLessThan(5000);
    }
    const stats = server.stats();
    expect(stats).toMatchObject({
      model: 'fixed-window',
      arrivals: 5,
      byStatus: { 200: 3, 429: 2 },
      inFlight: 0,
      aborted: 0,
      capacity: 3,
    });
    expect(stats.maxInFlight).toBeGreaterThanOrEqual(3);
    expect(stats.firstArrivalMs).not.toBeNull();
    expect(stats.lastArrivalMs as number).toBeGreaterThanOrEqual(stats.firstArrivalMs as number);
    const remote = await request(`${server.url}/__stats`);
    const json = (await remote.body.json()) as typeof stats;
    expect(json).toMatchObject({ arrivals: 5, byStatus: { 200: 3, 429: 2 }, capacity: 3 });
    expect(server.stats().arrivals).toBe(5); // the stats endpoint is not an arrival
  });

  it('keys clients by remote address unless x-ratewise-client names a session', async () => {
    const server = await start(new BlockModel({ threshold: 1, latencyMs: 0 }));
    const get = async (client?: string) => {
      const headers = client === undefined ? {} : { [CLIENT_HEADER]: client };
      const res = await request(server.url, { headers });
      return {
        status: res.statusCode,
        body: await res.body.text(),
        type: res.headers['content-type'],
      };
    };
    expect((await get()).status).toBe(200);
    const blocked = await get();
    expect(blocked.status).toBe(403);
    expect(blocked.type).toMatch(/text\/html/);
    expect(blocked.body).toContain(CAPTCHA_MARKER);
    expect((await get('session-2')).status).toBe(200);
    expect((await get('session-2')).status).toBe(403);
    expect((await get('session-3')).status).toBe(200);
  });

  it('drips the body in chunks over bodyMs after a fast status line', async () => {
    const model: ServerModel = {
      name: 'slow-body',
      arrive: () => ({ status: 200, headers: {}, ttfbMs: 0, bodyBytes: 3000, bodyMs: 120 }),
      capacity: () => undefined,
    };
    const server = await start(model, { dripIntervalMs: 20 });
    const started = performance.now();
    const res = await request(server.url);
    const headersAt = performance.now() - started;
    let chunks = 0;
    let bytes = 0;
    for await (const chunk of res.body) {
      chunks++;
      bytes += (chunk as Buffer).length;
    }
    const doneAt = performance.now() - started;
    expect(res.headers['content-length']).toBe('3000');
    expect(bytes).toBe(3000);
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(doneAt - headersAt).toBeGreaterThanOrEqual(100); // the body took its bodyMs
  });

  it('stops dripping when the client goes away and still finishes exactly once', async () => {
    const model = counting({
      name: 'endless',
      arrive: () => ({ status: 200, headers: {}, ttfbMs: 0, bodyBytes: 100, bodyMs: 5000 }),
      capacity: () => undefined,
    });
    const server = await start(model);
    const controller = new AbortController();
    const res = await request(server.url, { signal: controller.signal });
    expect(res.statusCode).toBe(200);
    controller.abort();
    await res.body.text().catch(() => undefined);
    await until(() => server.stats().inFlight === 0);
    expect(server.stats()).toMatchObject({ arrivals: 1, aborted: 1, inFlight: 0 });
    expect([...model.finishes.values()]).toEqual([1]);
  });

  it('finishes a request aborted before its first byte exactly once', async () => {
    const model = counting(new HealthyModel({ latencyMs: 5000 }));
    const server = await start(model);
    const controller = new AbortController();
    const pending = request(server.url, { signal: controller.signal }).catch((e: Error) => e);
    await until(() => server.stats().inFlight === 1);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await until(() => server.stats().inFlight === 0);
    expect(server.stats().aborted).toBe(1);
    expect([...model.finishes.values()]).toEqual([1]);
  });

  it('keeps connections alive, and close() ends idle and busy ones without hanging', async () => {
    const model = counting(new HealthyModel({ latencyMs: 0 }));
    const server = await startMockServer({ model });
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const fetchOnce = () =>
      new Promise<ClientRequest>((resolve, reject) => {
        const req = httpGet(server.url, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(req));
        });
        req.on('error', reject);
      });
    await fetchOnce();
    const second = await fetchOnce();
    expect(second.reusedSocket).toBe(true);
    const slow = await startMockServer({
      model: counting(new HealthyModel({ latencyMs: 10_000 })),
    });
    const pending = request(slow.url).catch((e: Error) => e);
    await until(() => slow.stats().inFlight === 1);
    const started = performance.now();
    await Promise.all([server.close(), slow.close()]);
    // close() ends the 10 s request instead of waiting for it (a bound, not a speed target)
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await pending).toBeInstanceOf(Error);
    expect(slow.stats()).toMatchObject({ inFlight: 0, aborted: 1 });
    await server.close(); // idempotent
    agent.destroy();
  });

  it('answers 500 when the model throws, and answers HEAD without a body', async () => {
    const broken = counting({
      name: 'broken',
      arrive: () => {
        throw new Error('bug');
      },
      capacity: () => undefined,
    });
    const server = await start(broken);
    const res = await request(server.url);
    expect(res.statusCode).toBe(500);
    expect(await res.body.text()).toContain('bug');
    const healthy = await start(new HealthyModel({ latencyMs: 0 }));
    const head = await request(healthy.url, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('2');
    expect(await head.body.text()).toBe('');
    await until(() => server.stats().inFlight === 0);
    expect([...broken.finishes.values()]).toEqual([1]);
  });

  it('validates its options', async () => {
    const model = new HealthyModel();
    await expect(startMockServer({ model, port: -1 })).rejects.toThrow(/`port`/);
    await expect(startMockServer({ model: {} as never })).rejects.toThrow(/`model`/);
    await expect(startMockServer({ model, prot: 1 } as never)).rejects.toThrow(
      /unknown option `prot`/,
    );
  });
});
