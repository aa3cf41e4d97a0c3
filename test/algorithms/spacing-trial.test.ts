import { describe, expect, it } from 'vitest';
import {
  CeilingRecounts,
  type CutToRecount,
  confirmsWithinASend,
} from '../../src/algorithms/ceiling-recounts.js';
import { RateMeter } from '../../src/algorithms/rate-meter.js';
import { SpacingTrial } from '../../src/algorithms/spacing-trial.js';
import { sample } from './samples.js';

/** A meter that saw requests sent at `sentTimes` accepted 100 ms later, in reverse order (as a slow page overtaken). */
function meterOf(sentTimes: number[]): RateMeter {
  const meter = new RateMeter(5000);
  for (const sentAt of [...sentTimes].reverse()) {
    const s = sample({ sentAt, at: sentAt + 100 });
    meter.advance(s, Infinity);
    meter.accept(s);
  }
  return meter;
}

/** A probe's climb at a slow scope: sent 1000, 950, 890, 833 ms apart, refused 780 ms after the last. */
const climb = [0, 1000, 1950, 2840, 3673];
const refused = sample({ sentAt: 4453, at: 4460, kind: 'throttled' });
const probe = (proven: boolean): CutToRecount => ({
  current: 1.3,
  calm: true,
  floor: 1,
  probeSpanMs: 4000,
  proven,
});
const none = { chargeFirstCount: () => {}, owe: () => {} };

describe('SpacingTrial', () => {
  it('gives back the base of the raise on trial once, then distrusts the spacing for good', () => {
    const trial = new SpacingTrial();
    expect(trial.refuted()).toBeUndefined(); // nothing on trial
    trial.raised(3);
    trial.raised(4); // the older base stays
    expect(trial.refuted()).toBe(3);
    expect(trial.trusted).toBe(false);
    expect(trial.refuted()).toBeUndefined();
  });

  it('lets a raise stand once the rate held under it proved refusal-free', () => {
    const trial = new SpacingTrial();
    trial.raised(3);
    trial.passed();
    expect(trial.refuted()).toBeUndefined();
    expect(trial.trusted).toBe(true);
  });
});

describe('a refused probe read from its spacing', () => {
  it('reads the fastest spacing of the accepted sends, sorted by send time', () => {
    expect(meterOf(climb).fastestAcceptedIn(0, 4453)).toBeCloseTo(1000 / 833, 6);
    expect(meterOf(climb).fastestAcceptedIn(0, 1950)).toBeCloseTo(1000 / 950, 6);
    expect(meterOf([5]).fastestAcceptedIn(0, 10)).toBeUndefined();
  });

  it('reads the spacing into the span from the last accepted send before it', () => {
    // A span of one send at a request a second: its spacing from the send before is a grant too.
    expect(meterOf([0, 900]).fastestAcceptedIn(500, 1000)).toBeCloseTo(1000 / 900, 6);
    expect(meterOf(climb).fastestAcceptedIn(2000, 3000)).toBeCloseTo(1000 / 890, 6);
    expect(meterOf([0, 900]).fastestAcceptedIn(-500, 10)).toBeUndefined();
  });

  it('raises a proven probe whose count reads its climb to the fastest spacing it was granted, on trial', () => {
    const recounts = new CeilingRecounts();
    const meter = meterOf(climb);
    recounts.plan(refused, probe(true), meter, 0);
    // Counted: 4 sends in the 4 s span, 1.0 req/s (the floor); spaced: one per 833 ms.
    expect(recounts.due(10_000, meter, 1, none)).toBeCloseTo(1000 / 833, 6);
    expect(recounts.trial.refuted()).toBe(1); // refused as held: back to what the count made
  });

  it('keeps the count where the probe was not proven, or a raise was refuted before', () => {
    const meter = meterOf(climb);
    const unproven = new CeilingRecounts();
    unproven.plan(refused, probe(false), meter, 0);
    expect(unproven.due(10_000, meter, 1.1, none)).toBe(1);
    const refuted = new CeilingRecounts();
    refuted.trial.raised(1);
    refuted.trial.refuted();
    refuted.plan(refused, probe(true), meter, 0);
    expect(refuted.due(10_000, meter, 1.1, none)).toBe(1);
  });

  it('reads only the spacing of a probe that confirmed its ceiling, and only at a few sends a step', () => {
    // A step of the probe's climb (its doubling time, 1 s) holds a send or few below 8 req/s.
    expect(confirmsWithinASend(5, 1000)).toBe(true);
    expect(confirmsWithinASend(10, 1000)).toBe(false);
    expect(confirmsWithinASend(10, 500)).toBe(true);
    const meter = meterOf(climb);
    const confirmed = { ...probe(true), confirmed: true };
    const spaced = new CeilingRecounts();
    spaced.plan(refused, { ...confirmed, calm: false }, meter, 0); // a spacing needs no calm span
    expect(spaced.due(10_000, meter, 1, none)).toBeCloseTo(1000 / 833, 6);
    const kept = new CeilingRecounts();
    kept.plan(refused, confirmed, meter, 0);
    expect(kept.due(10_000, meter, 1.25, none)).toBeUndefined(); // the count (1.0) is not read
  });
});
