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

/** Feeds 10 s of 200 ms answers, then 1,200 ms ones until the alarm; returns when it cut. */
function raiseAlarm(guard: LatencyGuard): number {
  feed(guard, 0, 10_000, () => 200);
  for (let sentAt = 10_000; ; sentAt += 100) {
    if (guard.observe(sentAt, sentAt + 1200) === 'slow-down') return sentAt + 1200;
  }
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

  it('clears a cut once three answers in a row sent after it are back to normal (a queue drained)', () => {
    // A queue served at its own rate: the cut drains it in a moment, and the answers sent after
    // the cut are fast again from the second on. Ten answers at the slowed rate (the cut's usual
    // judgement) would hold the cut for 5 s here; three in a row are enough to see it worked.
    const guard = new LatencyGuard();
    const cutAt = raiseAlarm(guard);
    const answers: [number, string][] = [];
    for (let i = 0; i < 10; i++) {
      const sentAt = cutAt + 500 * i;
      const at = sentAt + (i === 0 ? 1200 : 200); // the first still waited behind the queue
      const action = guard.observe(sentAt, at);
      if (action) answers.push([at, action]);
    }
    expect(answers).toEqual([[cutAt + 1700, 'cleared']]);
  });

  it('judges a cut by its median answer: a few still queued behind others do not make it look unhelpful', () => {
    const guard = new LatencyGuard();
    const cutAt = raiseAlarm(guard);
    const actions: string[] = [];
    for (let i = 0; i < 10; i++) {
      const sentAt = cutAt + 200 * i;
      const action = guard.observe(sentAt, sentAt + (i % 3 === 0 ? 1200 : 200));
      if (action) actions.push(action);
    }
    // Four of ten slow: a mean of 600 ms, still twice the clearing latency (another cut, before);
    // the median is back to normal.
    expect(actions).toEqual(['cleared']);
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
