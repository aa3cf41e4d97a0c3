import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../../src/detect/baseline-file.js';
import { detectBimodal } from '../../src/detect/bimodal.js';
import { BaselineCapture, checkAgainstBaseline } from '../../src/detect/latency-baseline.js';
import { LatencyMonitor } from '../../src/detect/latency-monitor.js';
import { diagnosePhases } from '../../src/detect/phase-diagnosis.js';
import { detectRamp } from '../../src/detect/ramp.js';
import { selfCheck } from '../../src/detect/self-check.js';
import { ThroughputDecayDetector } from '../../src/detect/throughput-decay.js';

/** Any finite double, including huge magnitudes, −0 and subnormals. */
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
/** Mostly plausible values with some arbitrary ones mixed in. */
const value = fc.oneof(finite, fc.double({ min: 0, max: 1e5, noNaN: true }), fc.integer());
const values = fc.array(value, { maxLength: 120 });
const runs = { numRuns: 300 };

/** Fails on any NaN number or "NaN" text anywhere inside `result`. */
function expectNoNaN(result: unknown, path = 'result'): void {
  if (typeof result === 'number') expect(Number.isNaN(result), path).toBe(false);
  else if (typeof result === 'string') expect(result, path).not.toContain('NaN');
  else if (result && typeof result === 'object') {
    for (const [key, inner] of Object.entries(result)) expectNoNaN(inner, `${path}.${key}`);
  }
}

const baseline = {
  host: 'h',
  p50: 100,
  p95: 200,
  p99: 300,
  samples: 100,
  capturedAt: '2026-01-01T00:00:00Z',
};

describe('detectors on arbitrary finite input never throw or return NaN', () => {
  it('ThroughputDecayDetector', () => {
    const completion = fc.record({ at: value, sentAt: value }, { requiredKeys: ['at'] });
    fc.assert(
      fc.property(fc.array(fc.tuple(completion, value, value)), fc.boolean(), (feed, raw) => {
        const options = { minSamples: 1, minElapsedMs: 0, timeConstantMs: 1000 };
        const detector = new ThroughputDecayDetector({
          ...options,
          normalise: raw ? 'none' : 'per-inflight',
        });
        for (const [c, tickAt, inflight] of feed) {
          expect([undefined, 'alarm', 'clear']).toContain(detector.observe(c));
          expect([undefined, 'alarm', 'clear']).toContain(detector.tick(tickAt, inflight));
        }
        expectNoNaN(detector.state);
      }),
      runs,
    );
  });

  it('latency baselines and monitor', () => {
    fc.assert(
      fc.property(values, fc.integer({ min: 1, max: 10 }), (latencies, windowSize) => {
        const capture = new BaselineCapture('h', { windowSize });
        const monitor = new LatencyMonitor({ windowSize });
        const given = new LatencyMonitor({ windowSize, baseline });
        for (const x of latencies) {
          capture.add(x);
          monitor.observe(x);
          given.observe(x);
        }
        expectNoNaN([capture.fastest, monitor.state, monitor.baseline, given.state]);
        expectNoNaN(checkAgainstBaseline(latencies, baseline, { minSamples: 1 }));
        const stored = capture.toBaseline(0);
        if (stored) expectNoNaN(parseBaseline(JSON.stringify(stored)));
      }),
      runs,
    );
  });

  it('parseBaseline on arbitrary JSON and text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string(), fc.anything()), (input) => {
        const result = parseBaseline(input);
        expect(typeof result.ok).toBe('boolean');
      }),
      runs,
    );
  });

  it('diagnosePhases', () => {
    const timing = fc.record({
      dnsMs: value,
      connectMs: value,
      tlsMs: value,
      ttfbMs: value,
      totalMs: value,
      bytes: value,
    });
    fc.assert(
      fc.property(
        fc.array(timing, { maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        (t, window) => {
          expectNoNaN(diagnosePhases(t, { window }));
        },
      ),
      runs,
    );
  });

  it('detectRamp', () => {
    const observation = fc.record({
      index: value,
      at: value,
      latencyMs: value,
      currentRate: value,
    });
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 80 }), (o) => {
        expectNoNaN(detectRamp(o, { minSamples: 3 }));
      }),
      runs,
    );
  });

  it('detectBimodal', () => {
    fc.assert(
      fc.property(values, (latencies) => {
        expectNoNaN(detectBimodal(latencies, { minSamples: 2 }));
      }),
      runs,
    );
  });

  it('selfCheck', () => {
    const m = fc.record(
      {
        eventLoopLagP99Ms: value,
        cpuUtilisation: value,
        poolSaturation: value,
        ceilingShare: value,
        throughputDrop: value,
        latencyRatio: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(m, (measurements) => {
        const result = selfCheck(measurements);
        expect(['look-inward', 'target-side', 'no-finding']).toContain(result.verdict);
        expectNoNaN(result);
      }),
      runs,
    );
  });
});
