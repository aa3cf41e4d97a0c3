import { describe, expect, it } from 'vitest';
import { HostCounts } from '../../src/analyze/host-counts.js';
import { analyzeLines } from '../../src/analyze/log-analyzer.js';
import type { ControlEvent } from '../../src/events/event.js';

const WALL = Date.parse('2026-03-01T10:00:00Z');

/**
 * One process's events: `seconds` of `perSecond` ok samples, then a 429 at
 * the start, timed by a monotonic clock that starts near 0 (as
 * `performance.now()` does in a fresh process) and a wall clock from `wallStart`.
 */
function run(wallStart: number, seconds: number, perSecond: number, marked: boolean): string[] {
  const t0 = 150;
  const lines: string[] = [];
  if (marked) {
    lines.push(JSON.stringify({ type: 'run', run: `r${wallStart}`, t: t0, wall: wallStart }));
  }
  const sample = (t: number, status: number): ControlEvent => ({
    t,
    wall: wallStart + (t - t0),
    scope: 'host:127.0.0.1:8931',
    type: 'sample',
    limit: 10,
    rate: 30,
    inflight: 5,
    queued: 0,
    reason: status === 429 ? '429' : 'ok',
    signal: status === 429 ? 'throttled' : 'ok',
    status,
    rttMs: 100,
  });
  lines.push(JSON.stringify(sample(t0 + 10, 429)));
  for (let i = 0; i < seconds * perSecond; i++) {
    lines.push(JSON.stringify(sample(t0 + 20 + (i * 1000) / perSecond, 200)));
  }
  return lines;
}

describe('runs appended to one log (crawl, then crawl --resume)', () => {
  for (const marked of [true, false]) {
    it(`lays them one after the other on the wall clock (${marked ? 'run-start lines' : 'found by the clock going back'})`, () => {
      // Two processes at 30 ok/s: 25 s, a 5 s pause, then 40 s.
      const lines = [...run(WALL, 25, 30, marked), ...run(WALL + 30_000, 40, 30, marked)];
      const a = analyzeLines(lines, { windowS: 5 });
      expect(a.runs.count).toBe(2);
      expect(a.runs.axis).toBe('wall-clock');
      expect(a.lines.runStarts).toBe(marked ? 2 : 0);
      expect(a.runs.list.map((r) => r.requests)).toEqual([751, 1201]);
      expect(a.runs.list[0]?.id).toBe(marked ? `r${WALL}` : null);
      expect(a.runs.list[1]?.start).toBeCloseTo(WALL + 30_010, -1);
      expect(a.totals.late).toBe(0);
      expect(a.totals.ok).toBe(1950);
      expect(a.totals.throttled).toBe(2);
      // Over the runs' own 65 s, not the 70 s from first to last record, nor the 40 s they overlapped in.
      expect(a.totals.rps).toBeCloseTo(1952 / 65, 0);
      expect(a.span?.durationS).toBeCloseTo(70, 0);
      for (const w of a.windows) expect(w.rps).toBeLessThanOrEqual(30.5);
      // The pause between the runs is no stall of the throughput detectors.
      expect(a.alarms.filter((x) => x.source === 'throughput')).toEqual([]);
    });
  }

  it('a single run is one run on its own axis', () => {
    const a = analyzeLines(run(WALL, 10, 10, true));
    expect(a.runs).toMatchObject({ count: 1, axis: 'single' });
    expect(a.runs.activeS).toBeCloseTo(a.span?.durationS ?? 0, 6);
  });

  it('keeps at most 100 runs listed, counting the rest', () => {
    const lines = Array.from({ length: 150 }, (_, i) => run(WALL + i * 10_000, 1, 5, true)).flat();
    const a = analyzeLines(lines);
    expect(a.runs.count).toBe(150);
    expect(a.runs.list).toHaveLength(100);
  });
});

describe('HostCounts', () => {
  it('counts per host and forgets the least recently seen host beyond its capacity', () => {
    const counts = new HostCounts(3);
    expect([counts.next('a'), counts.next('a'), counts.next('b'), counts.next('c')]).toEqual([
      1, 2, 1, 1,
    ]);
    counts.next('a'); // a is now the most recent: b is the oldest
    expect(counts.next('d')).toBe(1);
    expect(counts.size).toBe(3);
    expect(counts.next('a')).toBe(4);
    expect(counts.next('b')).toBe(1); // forgotten, counts afresh
  });

  it('holds at most 10 000 hosts whatever the log (memory bounded for millions of hosts)', () => {
    const counts = new HostCounts();
    for (let i = 0; i < 50_000; i++) counts.next(`h${i}.example`);
    expect(counts.size).toBe(10_000);
  });
});
