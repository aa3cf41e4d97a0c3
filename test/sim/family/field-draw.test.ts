import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { familyModel } from '../../../src/sim/family/build.js';
import { describeServer } from '../../../src/sim/family/describe.js';
import { drawServer, RUN_MS } from '../../../src/sim/family/draw.js';
import { drawFieldServer } from '../../../src/sim/family/field-draw.js';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer, FieldKind } from '../../../src/sim/family/server.js';
import { drawFrom, SERVER_SETS } from '../../../src/sim/family/sets.js';
import { ratewise } from '../../../src/sim/strategies/index.js';

const SEED = 1;
const sample = Array.from({ length: 200 }, (_, i) => drawFieldServer(SEED, i));
const ofKind = (kind: FieldKind) => sample.filter((s) => s.kind === kind);
const rateOf = (server: FamilyServer) => server.rate[0]?.rate ?? Number.NaN;
const SECOND = 1000;

describe('drawFieldServer', () => {
  it('depends only on the seed and the index', () => {
    expect(drawFieldServer(SEED, 42)).toEqual(sample[42]);
    expect(drawFieldServer(SEED + 1, 42)).not.toEqual(sample[42]);
    expect(drawFieldServer(SEED, 43)).not.toEqual(sample[42]);
    expect(sample[42]).toMatchObject({ seed: SEED, index: 42 });
  });

  it('draws every field kind, and only field kinds', () => {
    expect(new Set(sample.map((s) => s.kind))).toEqual(
      new Set(['limit-req', 'sliding-counter', 'lumpy-bucket', 'penalty-box']),
    );
    for (const kind of ['limit-req', 'sliding-counter', 'lumpy-bucket', 'penalty-box'] as const) {
      expect(ofKind(kind).length, kind).toBeGreaterThanOrEqual(20);
    }
  });

  it('gives every server one constant rate, a latency of 20 ms–2 s and a field setting', () => {
    for (const server of sample) {
      expect(server.rate).toHaveLength(1);
      expect(server.rate[0]?.fromMs).toBe(0);
      expect(server.latencyMs).toBeGreaterThanOrEqual(20);
      expect(server.latencyMs).toBeLessThanOrEqual(2000);
      expect(server.jitterMs).toBeGreaterThanOrEqual(0);
      expect(server.jitterMs).toBeLessThanOrEqual(server.latencyMs);
      expect(server.client.maxConcurrency).toBeGreaterThanOrEqual(2);
      expect(server.client.maxConcurrency).toBeLessThanOrEqual(256);
      expect(server.client.urls).toBeUndefined();
      expect(server.ramp).toBeUndefined();
      expect(server.durationMs).toBe(RUN_MS);
      expect(server.field).toBeDefined();
      expect(server.noise).toBeGreaterThanOrEqual(0);
      expect(server.noise).toBeLessThanOrEqual(0.02);
      expect(Math.abs(server.dateSkewMs)).toBeLessThanOrEqual(30 * SECOND);
    }
    expect(sample.some((s) => s.background !== undefined)).toBe(true);
    expect(sample.some((s) => s.noise > 0)).toBe(true);
    expect(sample.some((s) => s.dateSkewMs !== 0)).toBe(true);
  });

  it('limit-req: 0.5–200 r/s, nginx bursts, nodelay / delayed / delay=N, 503 or 429, no wait stated', () => {
    const servers = ofKind('limit-req');
    for (const s of servers) {
      expect(rateOf(s)).toBeGreaterThanOrEqual(0.5);
      expect(rateOf(s)).toBeLessThanOrEqual(200);
      expect(s.windowMs).toBe(SECOND);
      expect([0, 1, 5, 10, 20, 50, 100]).toContain(s.burst);
      expect([Infinity, 0, Math.floor(s.burst / 2)]).toContain(s.field?.delay);
      expect([503, 429]).toContain(s.refusalStatus);
      expect(['none', 'fixed']).toContain(s.retryAfter);
    }
    expect(new Set(servers.map((s) => s.refusalStatus))).toEqual(new Set([503, 429]));
    expect(servers.some((s) => s.field?.delay === Infinity)).toBe(true);
    expect(servers.some((s) => s.field?.delay === 0)).toBe(true);
    expect(servers.some((s) => (s.field?.delay ?? 0) > 0 && s.field?.delay !== Infinity)).toBe(
      true,
    );
    expect(new Set(servers.map((s) => s.burst)).size).toBeGreaterThanOrEqual(5);
  });

  it('only limit-req refuses with 503', () => {
    for (const s of sample.filter((s) => s.kind !== 'limit-req')) expect(s.refusalStatus).toBe(429);
  });

  it('sliding-counter: 1 s, 10 s or 1 min windows, at least one a window, refusals counted or not', () => {
    const servers = ofKind('sliding-counter');
    for (const s of servers) {
      expect([SECOND, 10 * SECOND, 60 * SECOND]).toContain(s.windowMs);
      expect(rateOf(s)).toBeGreaterThanOrEqual(Math.max(0.5, SECOND / s.windowMs) - 1e-9);
      expect(rateOf(s)).toBeLessThanOrEqual(200);
      expect(s.burst).toBe(0);
      expect(s.field?.phaseMs).toBeGreaterThanOrEqual(0);
      expect(s.field?.phaseMs).toBeLessThanOrEqual(s.windowMs);
    }
    expect(new Set(servers.map((s) => s.field?.countsRefused))).toEqual(new Set([true, false]));
    expect(new Set(servers.map((s) => s.windowMs)).size).toBe(3);
  });

  it('lumpy-bucket: fills of whole tokens every 100 ms, 1 s or 1 min, holding 1–5 fills', () => {
    const servers = ofKind('lumpy-bucket');
    for (const s of servers) {
      expect([100, SECOND, 60 * SECOND]).toContain(s.windowMs);
      const perFill = (rateOf(s) * s.windowMs) / SECOND;
      expect(perFill).toBeCloseTo(Math.round(perFill), 9);
      expect(Math.round(perFill)).toBeGreaterThanOrEqual(1);
      expect(Math.round(perFill)).toBeLessThanOrEqual(Math.round((300 * s.windowMs) / SECOND));
      const fills = s.burst / Math.round(perFill);
      expect(s.windowMs < 60 * SECOND ? [1, 2, 5] : [1]).toContain(fills);
      expect(s.field?.phaseMs).toBeGreaterThanOrEqual(0);
      expect(s.field?.phaseMs).toBeLessThanOrEqual(s.windowMs);
    }
    expect(new Set(servers.map((s) => s.field?.publishes))).toEqual(new Set([true, false]));
    expect(new Set(servers.map((s) => s.windowMs)).size).toBe(3);
  });

  it('penalty-box: 1 s, 10 s or 1 min windows up to 100/s, blocks of 10 s to 2 min', () => {
    const servers = ofKind('penalty-box');
    for (const s of servers) {
      expect([SECOND, 10 * SECOND, 60 * SECOND]).toContain(s.windowMs);
      expect(rateOf(s)).toBeGreaterThanOrEqual(Math.max(0.5, SECOND / s.windowMs) - 1e-9);
      expect(rateOf(s)).toBeLessThanOrEqual(100);
      expect([10, 30, 60, 120].map((x) => x * SECOND)).toContain(s.field?.blockMs);
      expect(['wait', 'none', 'http-date']).toContain(s.retryAfter);
    }
    expect(new Set(servers.map((s) => s.field?.blockMs)).size).toBeGreaterThanOrEqual(3);
  });

  it('every field server builds a model and is described in one line naming its kind', () => {
    for (const server of sample) {
      const model = familyModel(server);
      expect(model.capacity(0)).toBeGreaterThan(0);
      const text = describeServer(server);
      expect(text).toMatch(new RegExp(`^#${server.index} ${server.kind}[ /]`));
      expect(text).not.toContain('\n');
    }
    const delays = ofKind('limit-req').map((s) => describeServer(s));
    expect(delays.some((t) => / burst \d+ nodelay,/.test(t))).toBe(true);
    expect(delays.some((t) => / burst \d+ delayed,/.test(t))).toBe(true);
    expect(delays.some((t) => / burst \d+ delay=\d+,/.test(t))).toBe(true);
  });
});

describe('drawFrom', () => {
  it('draws the family as drawServer does and the field as drawFieldServer does', () => {
    expect(SERVER_SETS).toEqual(['family', 'field']);
    for (const i of [0, 1, 17, 199]) {
      expect(drawFrom('family', 3, i)).toEqual(drawServer(3, i));
      expect(drawFrom('field', 3, i)).toEqual(drawFieldServer(3, i));
    }
  });

  it('leaves the family draws as they were before the field set (moved helpers draw the same)', () => {
    // Digests of JSON.stringify(drawServer(seed, 0..199)) computed on 81aa68b^ (bf79ca3).
    const digest = (seed: number) =>
      createHash('sha256')
        .update(JSON.stringify(Array.from({ length: 200 }, (_, i) => drawServer(seed, i))))
        .digest('hex');
    expect(digest(1)).toBe('022558d297f14e3f05ed14cd29558333cf4339eceac30761c8779587e756eae3');
    expect(digest(7)).toBe('40fcef731b47e4f7f7582336260a8911a4a3d59dc81607913f0500de185a8be7');
    const first = Array.from({ length: 4 }, (_, i) => drawServer(1, i)).map((s) => [
      s.kind,
      +(s.rate[0]?.rate ?? 0).toFixed(4),
      s.burst,
      s.latencyMs,
      s.retryAfter,
    ]);
    expect(first).toEqual([
      ['gcra', 243.2285, 89, 1135, 'http-date'],
      ['concurrency-cap', 4.6345, 5, 1837, 'wait'],
      ['fixed-window', 157.3796, 77, 41, 'wait'],
      ['count-ramp', 4.4269, 3, 172, 'none'],
    ]);
  });
});

describe('ratewise on the field set', () => {
  const oneOfEach = (['limit-req', 'sliding-counter', 'lumpy-bucket', 'penalty-box'] as const).map(
    (kind) => ofKind(kind)[0] as FamilyServer,
  );

  it.each(oneOfEach.map((s) => [describeServer(s), s] as const))(
    'runs to the end with finite measures on %s',
    async (_name, server) => {
      const run = await runFamilyServer(server, ratewise, { durationMs: 20_000 });
      const m = run.measures;
      expect(run.strategy).toBe('ratewise');
      expect(run.hotLoopAt).toBeUndefined();
      expect(m.requests).toBeGreaterThan(0);
      expect(m.ok).toBeGreaterThan(0);
      expect(m.ok).toBeLessThanOrEqual(m.requests);
      expect(Number.isFinite(m.coldStart)).toBe(true);
      expect(m.coldStart).toBeGreaterThan(0);
      expect(m.refusedAll).toBeGreaterThanOrEqual(0);
      expect(m.refusedAll).toBeLessThanOrEqual(1);
    },
  );
});
