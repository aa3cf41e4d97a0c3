import { describe, expect, it } from 'vitest';
import { RateMeter } from '../../src/algorithms/rate-meter.js';
import { SAME_CLOCKS, throughJson } from './clocks.js';
import { sample } from './samples.js';

const WINDOW_MS = 5000;
const RTT_MS = 100;

/**
 * Requests sent at `perSecond` over [from, to), each accepted one round trip
 * later, the pacer offering `pace` (requests/s, Infinity: unpaced) meanwhile.
 */
function accept(meter: RateMeter, perSecond: number, from: number, to: number, pace = Infinity) {
  for (let sentAt = from; sentAt < to; sentAt += 1000 / perSecond) {
    const s = sample({ sentAt, at: sentAt + RTT_MS });
    meter.advance(s, pace);
    meter.accept(s);
  }
}

describe('RateMeter', () => {
  it('measures what the server accepted once a tenth of the window is behind it', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 20, 0, 300);
    expect(meter.accepted(400)).toBeUndefined(); // 300 ms of history: too little
    accept(meter, 20, 300, 10_000);
    const rate = meter.accepted(10_100) as number;
    expect(rate).toBeGreaterThan(18);
    expect(rate).toBeLessThan(22);
  });

  it('follows a change of rate within about a window', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 20, 0, 10_000);
    accept(meter, 5, 10_000, 20_000);
    const rate = meter.accepted(20_100) as number;
    expect(rate).toBeGreaterThan(4);
    expect(rate).toBeLessThan(7);
  });

  it('stretches its window at slow paces so that it always holds enough requests', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 1, 0, 5000, 1);
    expect(meter.windowMs).toBeGreaterThan(WINDOW_MS);
    expect(meter.windowMs / 1000).toBeGreaterThanOrEqual(10); // at least ten requests at 1/s
    const fast = new RateMeter(WINDOW_MS);
    accept(fast, 50, 0, 5000, 50);
    expect(fast.windowMs).toBe(WINDOW_MS); // enough requests in the base window already
  });

  it('calls a scope slow while its window is stretched past the base', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 1, 0, 5000, 1);
    expect(meter.slow).toBe(true);
    const fast = new RateMeter(WINDOW_MS);
    accept(fast, 50, 0, 5000, 50);
    expect(fast.slow).toBe(false);
  });

  it('holds a server pause until it ends, merging pauses that overlap', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 10, 0, 1000);
    meter.pauses.record(1100, 2000);
    expect(meter.pausedUntil).toBe(3100);
    meter.pauses.record(2000, 3000); // overlaps: one pause to 5000
    expect(meter.pausedUntil).toBe(5000);
    expect(meter.pauses.lengthMs).toBe(5000 - 1100);
    expect(meter.pauses.within(0, 2000)).toBe(900);
    accept(meter, 10, 5000, 5200);
    expect(meter.pausedUntil).toBe(0); // over once time passed it
    expect(meter.pauses.end).toBe(5000);
  });

  it('counts only the time outside a pause as active', () => {
    const meter = new RateMeter(WINDOW_MS);
    meter.advance(sample({ sentAt: 0, at: 100 }), Infinity);
    meter.pauses.record(100, 1000);
    const active = meter.advance(sample({ sentAt: 1500, at: 1600 }), Infinity);
    expect(active).toBe(1500 - 1000);
  });

  it('is calm only once the last pause is two windows behind', () => {
    const meter = new RateMeter(WINDOW_MS);
    expect(meter.calm(0)).toBe(true);
    accept(meter, 10, 0, 1000);
    meter.pauses.record(1000, 1000);
    expect(meter.calm(5000)).toBe(false);
    expect(meter.calm(2000 + 2 * WINDOW_MS + RTT_MS)).toBe(true);
  });

  it('takes what the pacer offered as what was sent when the pace, not the demand, limited sending', () => {
    const paced = new RateMeter(WINDOW_MS);
    accept(paced, 20, 0, 12_000, 20);
    expect(paced.sent(12_100, 19)).toBeCloseTo(20, 0); // accepted ≥ 90 %: the pace is the truth
    expect(paced.sent(12_100, 10)).toBe(10); // accepted far less: the demand limited it
    const unpaced = new RateMeter(WINDOW_MS);
    accept(unpaced, 20, 0, 12_000);
    expect(unpaced.sent(12_100, 19)).toBe(19);
  });

  it('reads the ceiling a refusal reveals: unpaced, what was accepted; nothing before any measure', () => {
    const fresh = new RateMeter(WINDOW_MS);
    const refusal = sample({ sentAt: 50, at: 60, kind: 'throttled' });
    fresh.advance(refusal, Infinity);
    expect(fresh.ceilingAt(refusal, Infinity)).toBeUndefined();
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 20, 0, 10_000);
    const late = sample({ sentAt: 10_000, at: 10_010, kind: 'throttled' });
    meter.advance(late, Infinity);
    const found = meter.ceilingAt(late, Infinity);
    expect(found?.calm).toBe(true);
    expect(found?.ceiling).toBeGreaterThan(18);
    expect(found?.ceiling).toBeLessThan(22);
    // Paced below what was accepted: the ceiling is never above the rate that failed.
    expect(meter.ceilingAt(late, 15)?.ceiling).toBeLessThanOrEqual(15);
  });

  it('counts accepted requests by send time, over the span its kept sends reach back to', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 10, 1000, 3000); // 20 sends, 100 ms apart
    expect(meter.acceptedSentIn(1000, 1900)).toEqual({ count: 10, fromMs: 1000 });
    expect(meter.acceptedSentIn(0, 1900)).toEqual({ count: 10, fromMs: 1000 }); // began at 1000
    accept(meter, 100, 3000, 10_000); // 700 more: only the latest 256 are kept
    const all = meter.acceptedSentIn(0, 10_000);
    expect(all?.count).toBe(256);
    expect(all?.fromMs).toBeGreaterThan(3000);
    expect(new RateMeter(WINDOW_MS).acceptedSentIn(0, 1000)).toBeUndefined();
  });

  it('after a pause, grants about the requests accepted per the longer of the pause and the span since', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 10, 0, 1000, 10);
    meter.pauses.record(1000, 1000); // silence until 2000
    accept(meter, 10, 2000, 3000, 10); // 10 requests in the second after it
    const refusal = sample({ sentAt: 3000, at: 3010, kind: 'throttled' });
    meter.advance(refusal, 10);
    const window = meter.pauses.grantWindow(refusal);
    expect(window).toMatchObject({ from: 2000, to: 3000 });
    const granted = meter.pauses.granted(refusal, 10);
    expect(granted).toBeGreaterThan(8); // about 10 per second
    expect(granted).toBeLessThanOrEqual(10);
  });

  it('resumes from its snapshot with the same measurements and pause', () => {
    const meter = new RateMeter(WINDOW_MS);
    accept(meter, 20, 0, 10_000, 20);
    meter.pauses.record(10_100, 2000);
    const copy = new RateMeter(WINDOW_MS);
    copy.restore(throughJson(meter.snapshot(SAME_CLOCKS)), SAME_CLOCKS);
    expect(copy.accepted(10_100)).toBe(meter.accepted(10_100));
    expect(copy.pausedUntil).toBe(meter.pausedUntil);
    expect(copy.calm(11_000)).toBe(meter.calm(11_000));
  });
});
