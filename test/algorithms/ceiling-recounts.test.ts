import { describe, expect, it } from 'vitest';
import { CeilingRecounts, type CutToRecount } from '../../src/algorithms/ceiling-recounts.js';
import { RateMeter } from '../../src/algorithms/rate-meter.js';
import { sample } from './samples.js';

/** A meter that saw `perSecond` requests sent over [0, 2000) accepted 100 ms later. */
function meterAt(perSecond: number): RateMeter {
  const meter = new RateMeter(5000);
  for (let sentAt = 0; sentAt < 2000; sentAt += 1000 / perSecond) {
    const s = sample({ sentAt, at: sentAt + 100 });
    meter.advance(s, Infinity);
    meter.accept(s);
  }
  return meter;
}

/** The refusal the recounts refine: sent at 2000, refused 10 ms later, asking for a second. */
const refused = sample({ sentAt: 2000, at: 2010, kind: 'throttled', retryAfterMs: 1000 });
const unpaced: CutToRecount = { current: Infinity, calm: true, floor: 0, probeSpanMs: undefined };
const none = { chargeFirstCount: () => {}, owe: () => {} };

describe('CeilingRecounts', () => {
  it('recounts the first ceiling once, from the sends of the second before the refusal, when their outcomes are in', () => {
    const recounts = new CeilingRecounts();
    const meter = meterAt(30);
    expect(recounts.plan(refused, unpaced, meter, 0)).toBe(true);
    expect(recounts.due(2500, meter, 10, none)).toBeUndefined(); // the outcomes are not all in
    const charged: number[] = [];
    const bill = { ...none, chargeFirstCount: (pauseMs: number) => charged.push(pauseMs) };
    const counted = recounts.due(5000, meter, 10, bill);
    expect(counted).toBeGreaterThanOrEqual(29); // 30 accepted in that second
    expect(counted).toBeLessThanOrEqual(31);
    expect(charged).toEqual([1000]); // charged the pause its refusal asked for, as a probe is
    expect(recounts.countedWhole).toBe(true); // and so read as a probe's reading, no guess
    expect(recounts.due(6000, meter, 10, none)).toBeUndefined(); // counted once
    expect(recounts.plan(refused, unpaced, meter, 0)).toBe(false); // the first ceiling only once
  });

  it('lets the first count only raise the ceiling', () => {
    const recounts = new CeilingRecounts();
    const meter = meterAt(30);
    recounts.plan(refused, unpaced, meter, 0);
    expect(recounts.due(5000, meter, 50, none)).toBeUndefined(); // 30 < 50: the ceiling stays
  });

  it("bounds the first count by what the server granted since a refuted cap trial's pause", () => {
    // A 1 s window of 30: the slow start's second before its first refusal straddles the window's
    // edge (40 accepted), the refusal begins a cap trial and a pause, and the burst on resuming is
    // granted 30 before a refusal refutes the trial.
    const meter = new RateMeter(5000);
    const accept = (sentAt: number) => {
      const s = sample({ sentAt, at: sentAt + 100 });
      meter.advance(s, Infinity);
      meter.accept(s);
    };
    for (let sentAt = 0; sentAt < 1000; sentAt += 25) accept(sentAt); // 40 in the second
    const begins = sample({ sentAt: 1000, at: 1010, kind: 'throttled', retryAfterMs: 1000 });
    meter.advance({ ...begins, capTrial: 'begins' }, Infinity);
    meter.pauses.record(1010, 1000);
    for (let sentAt = 2010; sentAt < 2310; sentAt += 10) accept(sentAt); // 30 granted since the pause
    const refutes = sample({ sentAt: 2310, at: 2320, kind: 'throttled', retryAfterMs: 1000 });
    meter.advance({ ...refutes, capTrial: 'refuted' }, Infinity);
    const first = (recounts: CeilingRecounts, drained: boolean, at: number) => {
      recounts.plan(refutes, unpaced, meter, 0);
      return recounts.due(at, meter, 20, none, drained);
    };
    const counted = first(new CeilingRecounts(), false, 5000) as number;
    expect(counted).toBeGreaterThanOrEqual(29); // the grant, not the 40 the count read
    expect(counted).toBeLessThanOrEqual(30);
    // Counted as soon as nothing is in flight: before sending resumes after the refusal's pause.
    expect(first(new CeilingRecounts(), false, 2400)).toBeUndefined();
    expect(first(new CeilingRecounts(), true, 2400)).toBeCloseTo(counted, 6);
  });

  it("recounts a refused probe's ceiling from the sends of its span, within the cut's bounds", () => {
    const meter = meterAt(30);
    const probe = (floor: number): CutToRecount => ({
      current: 40,
      calm: true,
      floor,
      probeSpanMs: 1000,
    });
    const recounts = new CeilingRecounts();
    expect(recounts.plan(refused, probe(20), meter, 0)).toBe(true);
    const counted = recounts.due(5000, meter, 25, none) as number;
    expect(counted).toBeGreaterThanOrEqual(29);
    expect(counted).toBeLessThanOrEqual(31);
    const floored = new CeilingRecounts();
    floored.plan(refused, probe(35), meter, 0);
    expect(floored.due(5000, meter, 36, none)).toBe(35); // never below the floor the cut set
  });

  it("recounts a fast scope's refused probe from its span although the sends since crowd it out of the kept send times", () => {
    // 600 req/s over [0, 2000), the probe refused at 2000 naming no pause, and 600 more a second
    // after it: the recount is due a second after the refusal, when the 256 kept send times were
    // all sent after the span. On main the recount read nothing and the ceiling stayed at the
    // probe's floor.
    const meter = new RateMeter(5000);
    const send = (sentAt: number, recounts?: CeilingRecounts) => {
      const s = sample({ sentAt, at: sentAt + 40 });
      meter.advance(s, 600);
      meter.accept(s);
      recounts?.accepted(s.sentAt);
    };
    // Answered by 1960: the last 40 ms of the span are answered after the refusal.
    for (let sentAt = 0; sentAt < 1920; sentAt += 1000 / 600) send(sentAt);
    const free = sample({ sentAt: 2000, at: 2005, kind: 'throttled' });
    const recounts = new CeilingRecounts();
    const probe: CutToRecount = { current: 700, calm: true, floor: 300, probeSpanMs: 1000 };
    expect(recounts.plan(free, probe, meter, 0)).toBe(true);
    for (let sentAt = 1920; sentAt < 3100; sentAt += 1000 / 600) send(sentAt, recounts);
    const counted = recounts.due(3100, meter, 300, none) as number;
    expect(counted).toBeGreaterThanOrEqual(590); // the 600 a second its span was granted
    expect(counted).toBeLessThanOrEqual(610);
  });

  it('recounts a refusal soon after a pause from what the server granted since that pause', () => {
    const meter = new RateMeter(5000);
    const accept = (sentAt: number) => {
      const s = sample({ sentAt, at: sentAt + 100 });
      meter.advance(s, 10);
      meter.accept(s);
    };
    for (let sentAt = 0; sentAt < 1000; sentAt += 100) accept(sentAt);
    meter.pauses.record(1000, 1000); // silence until 2000
    for (let sentAt = 2000; sentAt < 3000; sentAt += 100) accept(sentAt); // 10 in the second after it
    const again = sample({ sentAt: 3000, at: 3010, kind: 'throttled', retryAfterMs: 1000 });
    meter.advance(again, 10);
    const recounts = new CeilingRecounts();
    const cut: CutToRecount = { current: 15, calm: false, floor: 5, probeSpanMs: undefined };
    expect(recounts.plan(again, cut, meter, 0)).toBe(true);
    const counted = recounts.due(6000, meter, 12, none) as number;
    expect(counted).toBeGreaterThanOrEqual(9); // about the 10 a second granted
    expect(counted).toBeLessThanOrEqual(10.5);
  });

  it("owes the next probe when a probe refused with a pause counts far below what it sent at the end: its climb's average", () => {
    /** A meter of sends over [0, 2000): at `perSecond(t)` requests/s at each time t, all accepted. */
    const meterOf = (perSecond: (t: number) => number) => {
      const meter = new RateMeter(5000);
      for (let sentAt = 0; sentAt < 2000; sentAt += 1000 / perSecond(sentAt)) {
        const s = sample({ sentAt, at: sentAt + 100 });
        meter.advance(s, Infinity);
        meter.accept(s);
      }
      return meter;
    };
    const climbing = meterOf((t) => 30 * (1 + 0.6 * 2 ** (t / 1000))); // 48 → 102 req/s
    const flat = meterOf(() => 60);
    const probe: CutToRecount = { current: 100, calm: true, floor: 30, probeSpanMs: 2000 };
    const owed = (meter: RateMeter, cut: CutToRecount, refusal = refused) => {
      const counts: number[] = [];
      const recounts = new CeilingRecounts();
      recounts.plan(refusal, cut, meter, 0);
      recounts.due(10_000, meter, 30, { ...none, owe: (count) => counts.push(count) });
      return counts;
    };
    const [count] = owed(climbing, probe);
    expect(count).toBeGreaterThan(60); // the climb's average, about 70
    expect(count).toBeLessThan(80); // far below the ~95 a second it sent at the end
    expect(owed(flat, probe)).toEqual([]); // a pace the sends did not keep up with says nothing
    const unpaused = sample({ sentAt: 2000, at: 2010, kind: 'throttled', retryAfterMs: 0 });
    expect(owed(climbing, probe, unpaused)).toEqual([]); // the budget's next probe comes soon
    expect(owed(climbing, { ...probe, fromGuess: true })).toEqual([]); // judged by its last second
  });

  it('plans nothing for a paced refusal that was no probe and came with no pause to count from', () => {
    const recounts = new CeilingRecounts();
    const meter = meterAt(30);
    const held: CutToRecount = { current: 40, calm: false, floor: 20, probeSpanMs: undefined };
    expect(recounts.plan(refused, held, meter, 0)).toBe(false); // no pause yet: nothing granted to count
    expect(recounts.plan(refused, { ...held, calm: true }, meter, 0)).toBe(false);
  });
});
