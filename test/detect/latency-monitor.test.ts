import { describe, expect, it } from 'vitest';
import { LatencyMonitor } from '../../src/detect/latency-monitor.js';
import type { AlarmTransition } from '../../src/detect/transition.js';
import { seededRandom } from '../../src/random.js';
import { jitter } from './traffic.js';

const baseline = {
  host: 'h',
  p50: 200,
  p95: 250,
  p99: 280,
  samples: 100,
  capturedAt: '2026-01-31T04:00:00Z',
};

/** Feeds `count` latencies around `centre` (±30 %), returning the transitions with their index. */
function feed(monitor: LatencyMonitor, centre: number, count: number, seed = 1): AlarmTransition[] {
  const random = seededRandom(seed);
  const out: AlarmTransition[] = [];
  for (let i = 0; i < count; i++) {
    const t = monitor.observe(jitter(random, centre, 0.3));
    if (t) out.push(t);
  }
  return out;
}

describe('LatencyMonitor', () => {
  it('raises above 2× the captured p95 and clears below 1.5×', () => {
    const monitor = new LatencyMonitor({ baseline });
    expect(feed(monitor, 300, 500)).toEqual([]); // p95 ≈ 375 = 1.5×
    expect(feed(monitor, 600, 100)).toEqual(['alarm']); // p95 ≈ 750 = 3×
    expect(monitor.state).toMatchObject({ alarmed: true, baselineP95: 250, learned: false });
    expect(monitor.state.ratio).toBeGreaterThan(2);
    expect(feed(monitor, 450, 200)).toEqual([]); // between the thresholds: holds
    expect(feed(monitor, 200, 200)).toEqual(['clear']);
  });

  it('learns the fastest window as baseline when none was captured', () => {
    const monitor = new LatencyMonitor({ windowSize: 50 });
    expect(monitor.baseline).toBeUndefined();
    feed(monitor, 300, 50);
    const first = monitor.baseline?.p95 ?? 0;
    expect(first).toBeGreaterThan(350); // 300 ms ± 30 %: p95 ≈ 380
    feed(monitor, 200, 50, 2); // a faster window lowers the baseline
    const fastest = monitor.baseline;
    expect(fastest?.p95).toBeLessThan(260);
    feed(monitor, 260, 200, 3); // slower windows never raise it
    expect(monitor.baseline).toEqual(fastest);
    expect(monitor.state.learned).toBe(true);
    expect(feed(monitor, 700, 50, 4)).toEqual(['alarm']);
  });

  it('judges nothing until the window is full, and keeps memory bounded', () => {
    const monitor = new LatencyMonitor({ baseline, windowSize: 20 });
    expect(feed(monitor, 5000, 19)).toEqual([]);
    expect(monitor.observe(5000)).toBe('alarm');
    for (let i = 0; i < 10_000; i++) monitor.observe(100);
    expect(monitor.state.p95).toBe(100);
  });

  it('validates options', () => {
    expect(() => new LatencyMonitor({ clearThreshold: 3 })).toThrow(/clearThreshold` must be/);
    expect(() => new LatencyMonitor({ baseline: { ...baseline, host: '' } })).toThrow(/baseline/);
    expect(() => new LatencyMonitor({ window: 5 } as never)).toThrow(/unknown option `window`/);
  });
});
