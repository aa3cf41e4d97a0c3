import { describe, expect, it } from 'vitest';
import { bodyBuffer, chunkCount } from '../../src/testing/drip.js';
import { ServerStatsRecorder } from '../../src/testing/server-stats.js';

describe('ServerStatsRecorder', () => {
  it('tracks arrivals, statuses, in-flight peaks, aborts and arrival times', () => {
    const stats = new ServerStatsRecorder();
    expect(stats.snapshot('m', 0, undefined)).toMatchObject({
      arrivals: 0,
      firstArrivalMs: null,
      capacity: null,
    });
    stats.arrive(10);
    stats.decided(200);
    stats.arrive(20);
    stats.decided(429);
    stats.leave(false);
    stats.arrive(30);
    stats.decided(200);
    stats.leave(true);
    expect(stats.snapshot('m', 40, 30)).toEqual({
      model: 'm',
      arrivals: 3,
      byStatus: { 200: 2, 429: 1 },
      inFlight: 1,
      maxInFlight: 2,
      aborted: 1,
      firstArrivalMs: 10,
      lastArrivalMs: 30,
      uptimeMs: 40,
      capacity: 30,
    });
  });
});

describe('drip helpers', () => {
  it('plans one chunk per interval, at least one, at most one per byte', () => {
    expect(chunkCount(1000, { bodyMs: 0, intervalMs: 25 })).toBe(1);
    expect(chunkCount(1000, { bodyMs: 100, intervalMs: 25 })).toBe(4);
    expect(chunkCount(1000, { bodyMs: 110, intervalMs: 25 })).toBe(5);
    expect(chunkCount(3, { bodyMs: 1000, intervalMs: 25 })).toBe(3);
    expect(chunkCount(0, { bodyMs: 1000, intervalMs: 25 })).toBe(1);
  });

  it('sends the model body text, else filler bytes', () => {
    expect(bodyBuffer('héllo', 99).toString()).toBe('héllo');
    expect(bodyBuffer(undefined, 5).length).toBe(5);
  });
});
