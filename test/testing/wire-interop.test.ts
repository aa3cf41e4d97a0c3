import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { classify } from '../../src/classify.js';
import { createModel } from '../../src/sim/models/catalog.js';
import { type MockServer, startMockServer } from '../../src/testing/mock-server.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Fetches `count` responses in order and classifies each, as the controller would. */
async function classifyAll(spec: string, params: Record<string, string>, count: number) {
  const server = await startMockServer({ model: createModel(spec, params) });
  servers.push(server);
  const signals = [];
  for (let i = 0; i < count; i++) {
    const res = await request(server.url);
    const body = await res.body.text();
    signals.push(classify({ status: res.statusCode, headers: res.headers, body }));
  }
  return signals;
}

describe('mock-server replies read by the classifier and header parsers', () => {
  it('quota headers parse back to the published quota; the spent quota is throttled', async () => {
    const signals = await classifyAll(
      'quota',
      { limit: '2', windowMs: '60000', latencyMs: '0' },
      3,
    );
    expect(signals.map((s) => s.kind)).toEqual(['ok', 'ok', 'throttled']);
    expect(signals[0]?.quota).toMatchObject({
      source: 'ietf',
      limit: 2,
      remaining: 1,
      windowMs: 60_000,
    });
    expect(signals[2]?.quota?.remaining).toBe(0);
    expect(signals[2]?.retryAfterMs).toBeGreaterThan(50_000);
    expect(signals[2]?.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('an HTTP-date Retry-After is read against the Date header', async () => {
    const params = { rate: '0.2', windowMs: '5000', latencyMs: '0', retryAfter: 'http-date' };
    const [, rejected] = await classifyAll('fixed-window', params, 2);
    expect(rejected?.kind).toBe('throttled');
    expect(rejected?.retryAfterMs).toBeGreaterThanOrEqual(4000);
    expect(rejected?.retryAfterMs).toBeLessThanOrEqual(6000);
  });

  it('the block page is classified as blocked, not as a speed problem', async () => {
    const signals = await classifyAll('block', { threshold: '1', latencyMs: '0' }, 2);
    expect(signals.map((s) => s.kind)).toEqual(['ok', 'blocked']);
  });
});
