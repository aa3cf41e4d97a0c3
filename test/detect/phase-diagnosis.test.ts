import { describe, expect, it } from 'vitest';
import { diagnosePhases, type PhaseVerdict } from '../../src/detect/phase-diagnosis.js';
import { seededRandom } from '../../src/random.js';
import type { PhaseTimings } from '../../src/timings.js';
import { jitter } from './traffic.js';

/**
 * Curl readings of a healthy page, converted from curl's cumulative times to durations:
 * healthy dns=4 connect=31 tls=78 ttfb=142 total=151 → dns 4, connect 27, tls 47.
 */
const healthy = { dnsMs: 4, connectMs: 27, tlsMs: 47, ttfbMs: 142, totalMs: 151, bytes: 84_213 };
const KINDS: Record<
  Exclude<PhaseVerdict, 'healthy' | 'mixed' | 'insufficient-data'>,
  PhaseTimings
> = {
  tarpit: { dnsMs: 4, connectMs: 25, tlsMs: 46, ttfbMs: 1712, totalMs: 1724, bytes: 84_213 },
  'byte-drip': { dnsMs: 4, connectMs: 27, tlsMs: 47, ttfbMs: 150, totalMs: 4800, bytes: 84_213 },
  'slow-dns': { dnsMs: 2500, connectMs: 27, tlsMs: 47, ttfbMs: 2638, totalMs: 2647, bytes: 84_213 },
  'slow-connect': {
    dnsMs: 4,
    connectMs: 900,
    tlsMs: 1400,
    ttfbMs: 2368,
    totalMs: 2377,
    bytes: 84_213,
  },
};

const random = seededRandom('phases');
/** `n` copies of `t` with every phase jittered ±10 % (keeping ttfb and total consistent). */
function noisy(t: PhaseTimings, n: number): PhaseTimings[] {
  return Array.from({ length: n }, () => {
    const dnsMs = jitter(random, t.dnsMs, 0.1);
    const connectMs = jitter(random, t.connectMs, 0.1);
    const tlsMs = jitter(random, t.tlsMs, 0.1);
    const wait = jitter(random, t.ttfbMs - t.dnsMs - t.connectMs - t.tlsMs, 0.1);
    const ttfbMs = dnsMs + connectMs + tlsMs + wait;
    return {
      ...t,
      dnsMs,
      connectMs,
      tlsMs,
      ttfbMs,
      totalMs: ttfbMs + jitter(random, t.totalMs - t.ttfbMs, 0.1),
    };
  });
}

describe('diagnosePhases', () => {
  it.each(Object.entries(KINDS))('names %s against the first requests', (kind, slow) => {
    const result = diagnosePhases([...noisy(healthy, 10), ...noisy(slow, 10)]);
    expect(result.verdict).toBe(kind);
    expect(result.reference?.totalMs).toBeCloseTo(151, -1);
    expect(result.share).toBeGreaterThan(0.8);
    expect(result.samples).toBe(10);
    expect(result.explanation).toMatch(
      new RegExp(`^${kind}: total median \\d+ ms vs \\d+ ms reference`),
    );
  });

  it.each(Object.entries(KINDS))(
    'names %s from shares alone when there is no reference',
    (kind, slow) => {
      expect(diagnosePhases(noisy(slow, 8)).verdict).toBe(kind);
    },
  );

  it('reports the tarpit numbers: the wait grew, the handshakes stayed flat', () => {
    const result = diagnosePhases([healthy], { reference: diagnosePhases([healthy]).medians });
    expect(result.verdict).toBe('healthy');
    const tarpit = diagnosePhases([KINDS.tarpit], { reference: result.medians });
    expect(tarpit.medians).toMatchObject({ waitMs: 1637, bodyMs: 12, totalMs: 1724 });
    expect(tarpit.reference).toMatchObject({ waitMs: 64, bodyMs: 9, totalMs: 151 });
    expect(tarpit.explanation).toContain(
      'tarpit: total median 1724 ms vs 151 ms reference; server wait 64 ms → 1637 ms',
    );
    expect(tarpit.explanation).toContain('dns+connect+tls 78 ms → 75 ms');
  });

  it('calls a steady healthy run healthy, with or without a reference', () => {
    expect(diagnosePhases(noisy(healthy, 40)).verdict).toBe('healthy');
    expect(diagnosePhases(noisy(healthy, 5)).verdict).toBe('healthy');
    // Slower, but under the 2× rule.
    const slower = { ...healthy, ttfbMs: 200, totalMs: 209 };
    expect(diagnosePhases([...noisy(healthy, 10), ...noisy(slower, 10)]).verdict).toBe('healthy');
  });

  it('says mixed when no phase explains the slowdown, and a slow endpoint is only a tarpit without reference', () => {
    const both = { dnsMs: 4, connectMs: 600, tlsMs: 47, ttfbMs: 1300, totalMs: 1309, bytes: 1 };
    expect(diagnosePhases([...noisy(healthy, 10), ...noisy(both, 10)]).verdict).toBe('mixed');
    const slowEndpoint = { ...KINDS.tarpit };
    expect(diagnosePhases(noisy(slowEndpoint, 20)).verdict).toBe('healthy'); // first 10 = reference
  });

  it('treats reused connections (no dns/connect/tls) correctly', () => {
    const reused = { dnsMs: 0, connectMs: 0, tlsMs: 0, ttfbMs: 70, totalMs: 79, bytes: 1 };
    const held = { ...reused, ttfbMs: 1600, totalMs: 1609 };
    const result = diagnosePhases([...noisy(reused, 10), ...noisy(held, 10)]);
    expect(result.verdict).toBe('tarpit');
    expect(result.medians.connectMs).toBe(0);
  });

  it('skips invalid timings and says when nothing is usable', () => {
    const junk = { ...healthy, ttfbMs: Number.NaN };
    expect(diagnosePhases([]).verdict).toBe('insufficient-data');
    expect(diagnosePhases([junk, { ...healthy, dnsMs: -1 }]).verdict).toBe('insufficient-data');
    expect(diagnosePhases([junk, healthy]).samples).toBe(1);
  });

  it('validates options', () => {
    expect(() => diagnosePhases([], { window: 0 })).toThrow(/`window` must be an integer >= 1/);
    expect(() => diagnosePhases([], { dominance: 2 })).toThrow(/dominance/);
    const bad = { ...diagnosePhases([healthy]).medians, waitMs: Number.NaN };
    expect(() => diagnosePhases([], { reference: bad })).toThrow(/reference/);
  });
});
