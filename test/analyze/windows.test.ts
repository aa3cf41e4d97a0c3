import { describe, expect, it } from 'vitest';
import { ControlTotals } from '../../src/analyze/control-totals.js';
import { Reservoir } from '../../src/analyze/reservoir.js';
import { MAX_WINDOW_ROWS, WindowAggregator } from '../../src/analyze/windows.js';
import { TooManyWindowsError } from '../../src/errors.js';
import type { ControlEvent } from '../../src/events/event.js';
import { seededRandom } from '../../src/random.js';

const ok = (latencyMs: number) => ({ latencyMs, failed: false });

describe('WindowAggregator', () => {
  it('summarises fixed windows from the first record: counts, rate, nearest-rank percentiles, 429/503', () => {
    const windows = new WindowAggregator(1000);
    for (let i = 1; i <= 100; i++) windows.addRequest(10_000 + i * 9, ok(i));
    windows.addRequest(11_500, { status: 429, failed: true });
    windows.addRequest(11_600, { signal: 'overloaded', failed: true });
    windows.addRequest(12_009, ok(7));
    const rows = windows.finish();
    expect(rows.map((r) => r.requests)).toEqual([100, 2, 1]);
    expect(rows[0]).toMatchObject({
      start: 10_009,
      offsetS: 0,
      rps: 100,
      p50: 50,
      p95: 95,
      p99: 99,
      failed: 0,
    });
    expect(rows[1]).toMatchObject({ throttled: 1, overloaded: 1, failed: 2, p50: null });
    // The last window ends at its only record: rated over at least one second.
    expect(rows[2]).toMatchObject({ durationMs: 0, rps: 1 });
  });

  it('emits a stall as one empty row spanning it, keeping the last known limit and rate', () => {
    const windows = new WindowAggregator(1000);
    const state = { limit: 8, inflight: 3, queued: 1, rate: 5 };
    windows.addControl(0, state);
    windows.addRequest(100, ok(10));
    windows.addRequest(4_200, ok(10));
    const rows = windows.finish();
    expect(rows.map((r) => r.requests)).toEqual([1, 0, 1]);
    expect(rows.map((r) => [r.start, r.durationMs, r.rps])).toEqual([
      [0, 1000, 1],
      [1000, 3000, 0],
      [4000, 200, 1],
    ]);
    expect(rows.map((r) => r.limit)).toEqual([8, 8, 8]);
    expect(rows.map((r) => r.rate)).toEqual([5, 5, 5]);
    expect(rows.map((r) => r.inflightMax)).toEqual([3, null, null]);
  });

  it('a record a year away costs one row, not one per empty window', () => {
    const windows = new WindowAggregator(1);
    windows.addRequest(1000, ok(1));
    windows.addRequest(1000 + 365 * 86_400_000, ok(1));
    expect(windows.finish().map((r) => r.requests)).toEqual([1, 0, 1]);
  });

  it('refuses to grow past MAX_WINDOW_ROWS rows, naming the window', () => {
    const windows = new WindowAggregator(1);
    expect(() => {
      for (let at = 0; at <= 2 * MAX_WINDOW_ROWS; at += 2) windows.addRequest(at, ok(1));
    }).toThrow(TooManyWindowsError);
    expect(() => windows.addRequest(4 * MAX_WINDOW_ROWS, ok(1))).toThrow(
      /more than 100000 rows in windows of 0\.001 s/,
    );
  });

  it('takes a record up to one window before the first into a window of its own', () => {
    const windows = new WindowAggregator(1000);
    windows.addRequest(10_000, ok(1));
    windows.addRequest(9_999, ok(1)); // 1 ms earlier: not late
    windows.addRequest(8_999, ok(1)); // more than a window earlier: late
    const rows = windows.finish();
    expect(rows.map((r) => [r.start, r.offsetS, r.requests])).toEqual([
      [9_000, -1, 1],
      [10_000, 0, 1],
    ]);
    expect(windows.late).toBe(1);
  });

  it('accepts one window of disorder and counts anything older as late', () => {
    const windows = new WindowAggregator(1000);
    windows.addRequest(0, ok(1));
    windows.addRequest(1_500, ok(1));
    windows.addRequest(900, ok(1)); // one window back: still open
    windows.addRequest(3_100, ok(1)); // closes window 0 and 1
    windows.addRequest(500, ok(1)); // window 0 closed: late
    windows.addAlarm(200); // alarms for closed windows are dropped, not counted as late
    const rows = windows.finish();
    expect(rows.map((r) => r.requests)).toEqual([2, 1, 0, 1]);
    expect(windows.late).toBe(1);
  });

  it('medians of phases per window when timings exist', () => {
    const windows = new WindowAggregator(1000);
    const t = (ttfbMs: number) => ({
      dnsMs: 1,
      connectMs: 2,
      tlsMs: 0,
      ttfbMs,
      totalMs: ttfbMs + 10,
      bytes: 1,
    });
    for (const ttfb of [20, 30, 400])
      windows.addRequest(10, { latencyMs: ttfb + 10, timings: t(ttfb), failed: false });
    const [row] = windows.finish();
    expect(row?.phases).toEqual({
      dnsMs: 1,
      connectMs: 2,
      tlsMs: 0,
      waitMs: 27,
      bodyMs: 10,
      totalMs: 40,
    });
  });
});

describe('ControlTotals', () => {
  const event = (
    scope: string,
    limit: number,
    inflight: number,
    rate: number | null,
    type: ControlEvent['type'] = 'limit',
  ): ControlEvent => ({
    t: 0,
    wall: 0,
    scope,
    type,
    limit,
    rate,
    inflight,
    queued: 0,
    reason: '',
  });

  it('sums the latest state of every scope and drops evicted scopes', () => {
    const totals = new ControlTotals();
    totals.apply(event('a', 4, 2, null));
    expect(totals.apply(event('b', 8, 5, 10))).toEqual({
      limit: 12,
      inflight: 7,
      queued: 0,
      rate: 10,
    });
    expect(totals.apply(event('a', 6, 1, 2))).toEqual({
      limit: 14,
      inflight: 6,
      queued: 0,
      rate: 12,
    });
    expect(totals.apply(event('b', 8, 0, 10, 'evict'))).toEqual({
      limit: 6,
      inflight: 1,
      queued: 0,
      rate: 2,
    });
    expect(totals.apply(event('a', Number.NaN, 1, 2))).toBeUndefined();
  });
});

describe('Reservoir', () => {
  it('holds everything up to its capacity, then a uniform sample of fixed size', () => {
    const small = new Reservoir<number>(10, seededRandom(1));
    for (let i = 0; i < 10; i++) small.add(i);
    expect([...small.items]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(small.exact).toBe(true);
    const big = new Reservoir<number>(1000, seededRandom(2));
    for (let i = 0; i < 100_000; i++) big.add(i);
    expect(big.items.length).toBe(1000);
    expect(big.exact).toBe(false);
    expect(big.seen).toBe(100_000);
    const mean = big.items.reduce((a, b) => a + b, 0) / 1000;
    expect(mean).toBeGreaterThan(45_000);
    expect(mean).toBeLessThan(55_000);
    expect(big.items.filter((x) => x >= 90_000).length).toBeGreaterThan(60);
  });
});
