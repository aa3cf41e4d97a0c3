import { describe, expect, it } from 'vitest';
import { selfCheck } from '../../src/detect/self-check.js';

const areas = (r: ReturnType<typeof selfCheck>) => r.findings.map((f) => f.area);

describe('selfCheck', () => {
  it('finds nothing in a healthy process against a healthy target', () => {
    const result = selfCheck({
      eventLoopLagP99Ms: 12,
      cpuUtilisation: 0.3,
      poolSaturation: 0,
      ceilingShare: 0.2,
      throughputDrop: 0.05,
      latencyRatio: 1.1,
    });
    expect(result).toEqual({ verdict: 'no-finding', findings: [] });
    expect(selfCheck({})).toEqual({ verdict: 'no-finding', findings: [] });
  });

  it('looks inward for a blocked loop, a pegged CPU and a queueing pool', () => {
    const result = selfCheck({ eventLoopLagP99Ms: 250, cpuUtilisation: 0.97, poolSaturation: 2 });
    expect(result.verdict).toBe('look-inward');
    expect(areas(result)).toEqual(['event-loop', 'cpu', 'connection-pool']);
    expect(result.findings[0]).toMatchObject({ side: 'inward', value: 250, limit: 100 });
    expect(result.findings[1]?.advice).toMatch(/CPU-bound/);
  });

  it('reads throughput falling while latency holds as our doing', () => {
    const result = selfCheck({ throughputDrop: 0.5, latencyRatio: 1.05, ceilingShare: 0.95 });
    expect(result.verdict).toBe('look-inward');
    expect(areas(result)).toEqual(['concurrency-ceiling', 'throughput']);
  });

  it('reads throughput falling with latency up as the target, and a pinned ceiling as its effect', () => {
    const result = selfCheck({ throughputDrop: 0.5, latencyRatio: 3.2, ceilingShare: 0.95 });
    expect(result.verdict).toBe('target-side');
    expect(result.findings).toEqual([
      expect.objectContaining({ area: 'latency', side: 'target', value: 3.2, limit: 2 }),
    ]);
    expect(result.findings[0]?.advice).toMatch(/^throughput fell and latency is up/);
  });

  it('puts inward findings first even when latency is up (a busy client inflates its latencies)', () => {
    const result = selfCheck({ cpuUtilisation: 1, latencyRatio: 3 });
    expect(result.verdict).toBe('look-inward');
    expect(areas(result)).toEqual(['cpu', 'latency']);
  });

  it('is undecided in the grey zone between holding and slow latency', () => {
    expect(selfCheck({ throughputDrop: 0.5, latencyRatio: 1.6 }).verdict).toBe('no-finding');
  });

  it('ignores unusable values, rejects unknown measurement names and bad limits', () => {
    expect(selfCheck({ cpuUtilisation: Number.NaN, latencyRatio: -3 }).verdict).toBe('no-finding');
    expect(() => selfCheck({ cpuUtilization: 1 } as never)).toThrow(
      /unknown option `cpuUtilization`/,
    );
    expect(() => selfCheck({}, { slowRatio: 1 })).toThrow(/slowRatio` must be a number >= 1.3/);
    expect(selfCheck({ cpuUtilisation: 0.6 }, { maxCpu: 0.5 }).verdict).toBe('look-inward');
  });
});
