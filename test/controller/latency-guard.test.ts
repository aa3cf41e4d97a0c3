import { describe, expect, it } from 'vitest';
import { LatencyGuard } from '../../src/controller/latency-guard.js';
import { seededRandom } from '../../src/random.js';

/** Feeds one request every 100 ms with the latency `latencyAt(sentAt)`; returns the actions by time. */
function feed(
  guard: LatencyGuard,
  from: number,
  to: number,
  latencyAt: (sentAt: number) => number,
) {
  const actions: [number, string][] = [];
  for (let sentAt = from; sentAt < to; sentAt += 100) {
    const at = sentAt + latencyAt(sentAt);
    const action = guard.observe(sentAt, at);
    if (action) actions.push([at, action]);
  }
  return actions;
}

describe('LatencyGuard', () => {
  it('stays quiet on a healthy target with noisy latency', () => {
    const guard = new LatencyGuard();
    const random = seededRandom(3);
    expect(feed(guard, 0, 600_000, () => 200 + 150 * random.next())).toEqual([]);
  });

  it('alarms when latency inflates, and clears once the requests sent after the cut are fast again', () => {
    const guard = new LatencyGuard({ judgeAfterMs: 5000 });
    feed(guard, 0, 10_000, () => 200);
    const raised = feed(guard, 10_000, 13_700, () => 1200);
    expect(raised[0]?.[1]).toBe('slow-down');
    // the cut worked: the target delays only when we are too fast
    const after = feed(guard, 13_700, 40_000, () => 200);
    expect(after.map(([, action]) => action)).toContain('cleared');
    expect(after.map(([, action]) => action)).not.toContain('futile');
  });

  it('gives up when slowing down does not help, and takes the new latency as normal', () => {
    const guard = new LatencyGuard({ judgeAfterMs: 5000 });
    feed(guard, 0, 10_000, () => 200);
    // latency keyed to something else than our rate: it keeps climbing whatever we do
    const actions = feed(guard, 10_000, 40_000, (sentAt) => 200 + (sentAt - 10_000) / 20);
    const kinds = actions.map(([, action]) => action);
    expect(kinds[0]).toBe('slow-down');
    expect(kinds).toContain('futile');
    // after giving up, the same latency does not alarm again at once
    const later = feed(guard, 40_000, 45_000, () => 1700);
    expect(later).toEqual([]);
  });

  it('stays quiet longer after each futile alarm in a row (a ramp it cannot help)', () => {
    const guard = new LatencyGuard({ judgeAfterMs: 2000 });
    feed(guard, 0, 10_000, () => 200);
    // latency doubling every 20 s whatever we do: each new normal is soon exceeded
    const actions = feed(
      guard,
      10_000,
      400_000,
      (sentAt) => 200 * 2 ** ((sentAt - 10_000) / 20_000),
    );
    const alarms = actions.filter(([, action]) => action === 'slow-down').map(([at]) => at);
    expect(alarms.length).toBeGreaterThan(2);
    const gaps = alarms.slice(1).map((at, i) => at - (alarms[i] as number));
    expect(gaps[gaps.length - 1]).toBeGreaterThan(2 * (gaps[0] as number));
  });

  it('validates its options', () => {
    expect(() => new LatencyGuard({ windowSize: 2 })).toThrow(
      /`windowSize` must be an integer >= 5/,
    );
  });
});

describe('LatencyGuard on fast servers', () => {
  it('does not alarm when a sub-millisecond latency doubles: that is noise, not throttling', () => {
    const actions: string[] = [];
    const guard = new LatencyGuard();
    const noFloor = new LatencyGuard({ minExcessMs: 0 });
    let noFloorAlarmed = false;
    for (let sentAt = 0; sentAt < 10_000; sentAt += 1) {
      const latency = sentAt < 2000 ? 0.3 : 0.9; // tripled, but by 0.6 ms
      const action = guard.observe(sentAt, sentAt + latency);
      if (action) actions.push(action);
      if (noFloor.observe(sentAt, sentAt + latency) === 'slow-down') noFloorAlarmed = true;
    }
    expect(actions).toEqual([]);
    expect(noFloorAlarmed).toBe(true); // the ratio alone would have cut the rate
  });
});
