import { describe, expect, it } from 'vitest';
import { describeServer } from '../../../src/sim/family/describe.js';
import { drawServer, RATE_RANGE } from '../../../src/sim/family/draw.js';
import { hasCapacity, meanLatencyMs } from '../../../src/sim/family/server.js';

const sample = Array.from({ length: 300 }, (_, i) => drawServer(7, i));

describe('drawServer', () => {
  it('depends only on the seed and the index', () => {
    expect(drawServer(7, 42)).toEqual(sample[42]);
    expect(drawServer(8, 42)).not.toEqual(sample[42]);
  });

  it('covers every limit kind, refusal form and feature across a sample', () => {
    const kinds = new Set(sample.map((s) => s.kind));
    expect(kinds).toEqual(
      new Set([
        'fixed-window',
        'sliding-log',
        'token-bucket',
        'gcra',
        'concurrency-cap',
        'quota',
        'count-ramp',
        'rate-ramp',
      ]),
    );
    expect(new Set(sample.map((s) => s.retryAfter))).toEqual(
      new Set(['none', 'zero', 'wait', 'http-date', 'fixed']),
    );
    expect(new Set(sample.map((s) => s.refusalStatus))).toEqual(new Set([429, 503]));
    expect(sample.some((s) => s.background !== undefined)).toBe(true);
    expect(sample.some((s) => s.noise > 0)).toBe(true);
    expect(sample.some((s) => s.dateSkewMs !== 0)).toBe(true);
    expect(sample.some((s) => s.rate.length > 2)).toBe(true);
  });

  it('keeps rates, latencies and steps within the family bounds', () => {
    for (const server of sample.filter(hasCapacity)) {
      for (const step of server.rate) {
        if (server.kind === 'concurrency-cap') continue; // slots over latency
        expect(step.rate).toBeGreaterThanOrEqual(RATE_RANGE.min);
        expect(step.rate).toBeLessThanOrEqual(RATE_RANGE.max);
      }
      expect(server.latencyMs).toBeGreaterThanOrEqual(20);
      expect(meanLatencyMs(server)).toBeLessThanOrEqual(4000);
      const factors = server.rate
        .slice(1)
        .map((step, i) => step.rate / (server.rate[i]?.rate ?? 1));
      for (const factor of factors) {
        expect(factor).toBeGreaterThanOrEqual(0.25 - 1e-9);
        expect(factor).toBeLessThanOrEqual(4 + 1e-9);
      }
      expect(server.client.maxConcurrency).toBeGreaterThanOrEqual(2);
    }
  });

  it('describes a server in one line naming its kind, refusal form and client', () => {
    const text = describeServer(drawServer(1, 12));
    expect(text).toMatch(/^#12 fixed-window\/1s 9\.3 req\/s, 104\+65ms, 429 Retry-After zero/);
    expect(text).not.toContain('\n');
  });
});
