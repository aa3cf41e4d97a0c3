import { describe, expect, it } from 'vitest';
import { NEVER } from '../../src/algorithms/congestion.js';
import { LatestPause } from '../../src/algorithms/latest-pause.js';
import { sample } from './samples.js';

const refusedSentAt = (sentAt: number) => sample({ sentAt, at: sentAt + 50, kind: 'throttled' });

describe('LatestPause', () => {
  it('knows no pause at first', () => {
    const pauses = new LatestPause();
    expect(pauses.end).toBe(-Infinity);
    expect(pauses.lengthMs).toBe(0);
    expect(pauses.within(0, 10_000)).toBe(0);
    expect(pauses.pendingAfter(0)).toBe(0);
    expect(pauses.granted(refusedSentAt(100), 10)).toBe(Infinity);
    expect(pauses.grantWindow(refusedSentAt(100))).toBeUndefined();
    expect(pauses.judgeRefusal(refusedSentAt(100), 10)).toBeUndefined();
    expect(pauses.snapshot((t) => t)).toEqual({
      pauseFrom: NEVER,
      pauseTo: 0,
      offeredSincePause: 0,
    });
  });

  it('merges a pause that starts before the latest ended, and starts anew after it', () => {
    const pauses = new LatestPause();
    pauses.record(1000, 2000);
    pauses.record(1500, 1000); // inside it: no change to the end
    expect(pauses.end).toBe(3000);
    pauses.record(2500, 3000); // overlaps: one pause to 5500
    expect({ end: pauses.end, length: pauses.lengthMs }).toEqual({ end: 5500, length: 4500 });
    expect(pauses.pendingAfter(5000)).toBe(5500);
    expect(pauses.pendingAfter(5500)).toBe(0);
    pauses.record(8000, 500); // after it ended: a new pause
    expect(pauses.lengthMs).toBe(500);
    expect(pauses.within(0, 8200)).toBe(200);
  });

  it("forgives the refusals of a closure's tail only: the sends within one pause length (at most a second) after it", () => {
    const pauses = new LatestPause();
    pauses.record(1000, 400); // not a closure: no tail
    expect(pauses.refusedInTail(refusedSentAt(1500))).toBe(false);
    pauses.record(2000, 400, true); // a closure's pause to 2400: its tail is [2400, 2800)
    expect(pauses.refusedInTail(refusedSentAt(2399))).toBe(false);
    expect(pauses.refusedInTail(refusedSentAt(2400))).toBe(true);
    expect(pauses.refusedInTail(refusedSentAt(2799))).toBe(true);
    expect(pauses.refusedInTail(refusedSentAt(2800))).toBe(false);
    pauses.record(5000, 8000, true); // a long closure: the tail is capped at a second
    expect(pauses.refusedInTail(refusedSentAt(13_999))).toBe(true);
    expect(pauses.refusedInTail(refusedSentAt(14_000))).toBe(false);
  });

  it('without timing noise, only the first send after a pause finds the server closed', () => {
    const pauses = new LatestPause();
    const refused = (sentAt: number) => sample({ sentAt, at: sentAt, kind: 'throttled' }); // refused at once
    expect(pauses.judgeRefusal(refused(500), 100)).toBeUndefined(); // no pause yet
    pauses.record(1000, 1000); // to 2000; at 100 req/s half an interval is 5 ms
    expect(pauses.judgeRefusal(refused(2000), 100)).toBe('closed');
    pauses.record(2000, 1000, true);
    expect(pauses.judgeRefusal(refused(2010), 100)).toBeUndefined(); // a later send: the rate's
    expect(pauses.refutedBy(sample({ sentAt: 2000, at: 2100 }))).toBeUndefined(); // not on noise
  });

  it('with timing noise, judges a resume by send order within the refusals’ reorder span, and an earlier send’s acceptance refutes it', () => {
    const pauses = new LatestPause();
    // Refusals whose round trips spread 5-35 ms: they come back out of order by tens of ms.
    for (let i = 0; i < 20; i++) {
      const sentAt = i * 10;
      pauses.judgeRefusal(
        sample({ sentAt, at: sentAt + (i % 2 === 0 ? 5 : 35), kind: 'throttled' }),
        100,
      );
    }
    pauses.record(1000, 1000); // to 2000
    const first = sample({ sentAt: 2012, at: 2017, kind: 'throttled' }); // the third send, in first
    expect(pauses.judgeRefusal(first, 100)).toBe('closed');
    pauses.record(2017, 1000, true);
    const late = sample({ sentAt: 2002, at: 2037, kind: 'throttled' }); // the first send, in late
    expect(pauses.judgeRefusal(late, 100)).toBe('closure-late');
    const away = sample({ sentAt: 2300, at: 2310, kind: 'throttled' }); // beyond the span
    expect(pauses.judgeRefusal(away, 100)).toBeUndefined();
    // The second send was accepted after all: the server was open, the refusal is the rate's.
    expect(pauses.refutedBy(sample({ sentAt: 2013, at: 2400 }))).toBeUndefined(); // sent after it
    expect(pauses.refutedBy(sample({ sentAt: 2007, at: 2400 }))).toEqual({ ...first, at: 2400 });
    expect(pauses.refutedBy(sample({ sentAt: 2007, at: 2400 }))).toBeUndefined(); // once
  });

  it('credits what the pacer offered after the pause, and counts the paused part of a span', () => {
    const pauses = new LatestPause();
    expect(pauses.advance(0, 1000, 10)).toBe(0); // no pause yet
    pauses.record(1000, 1000);
    expect(pauses.advance(1000, 2500, 10)).toBe(1000); // paused 1000–2000, offered 5 after
    expect(pauses.advance(2500, 3000, Infinity)).toBe(0); // unpaced: nothing credited
    expect(pauses.snapshot((t) => t).offeredSincePause).toBeCloseTo(5);
  });

  it('resumes from its snapshot with the pause, times mapped to another clock', () => {
    const pauses = new LatestPause();
    pauses.record(1000, 2000);
    pauses.advance(1000, 4000, 10);
    const copy = new LatestPause();
    copy.restore(
      pauses.snapshot((t) => t + 1e12),
      (t) => t - 1e12 + 500,
    );
    expect({ end: copy.end, length: copy.lengthMs }).toEqual({ end: 3500, length: 2000 });
    expect(copy.snapshot((t) => t - 500).offeredSincePause).toBeCloseTo(10);
  });
});
