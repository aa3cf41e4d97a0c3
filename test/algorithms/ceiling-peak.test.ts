import { describe, expect, it } from 'vitest';
import { CeilingPeak } from '../../src/algorithms/ceiling-peak.js';

/** Where a probe's event left the ceiling: where it was, 2.5 % lower, elsewhere. */
const KEPT = { kept: true, near: true };
const LOWER = { kept: false, near: true };
const MOVED = { kept: false, near: false };

describe('CeilingPeak', () => {
  it('judges a ceiling under three quarters of the recent peak fallen, the peak fading over minutes', () => {
    const peak = new CeilingPeak();
    expect(peak.fallen(0, 4)).toBe(false); // the first ceiling is the peak
    expect(peak.fallen(1000, 2)).toBe(true);
    expect(peak.fallen(1000, 3.1)).toBe(false);
    expect(peak.fallen(600_000, 2)).toBe(false); // two half-lives on: the peak reads 1
  });

  it('stops judging a ceiling fallen once two probes in a row found it where it was', () => {
    const peak = new CeilingPeak();
    peak.fallen(0, 4);
    peak.onProbe(30_000, 1, KEPT, true);
    expect(peak.fallen(30_000, 1)).toBe(true); // one probe may have met a cold start's under-read
    peak.onProbe(60_000, 1, KEPT, true);
    expect(peak.fallen(60_000, 1)).toBe(false); // the capacity did not come back: 1 is the peak
    expect(peak.fallen(61_000, 0.7)).toBe(true); // and a fall from it is a fall
  });

  it('counts only probes in a row: one that moved the ceiling starts the count again', () => {
    const peak = new CeilingPeak();
    peak.fallen(0, 4);
    peak.onProbe(30_000, 1, KEPT, true);
    peak.onProbe(60_000, 1, MOVED, true);
    peak.onProbe(90_000, 1, KEPT, true);
    expect(peak.fallen(90_000, 1)).toBe(true);
  });

  it('brings a peak read after a pause down once two probes find the ceiling fallen from it where it was', () => {
    // A cold start's grant counted over its pause: 1000/s on a 450/s limit, refused as held within seconds.
    const peak = new CeilingPeak();
    peak.onCut(2000, false);
    expect(peak.fallen(3000, 1000)).toBe(false);
    peak.onCut(5000, true);
    expect(peak.fallen(6000, 440)).toBe(true); // judged against it at first
    peak.onProbe(30_000, 440, KEPT, false);
    expect(peak.fallen(30_000, 440)).toBe(true);
    peak.onProbe(60_000, 440, KEPT, false);
    expect(peak.fallen(60_000, 440)).toBe(false); // it never was a capacity: 440 is the peak
  });

  it('keeps a peak read calmly, or standing 10 s, however often a probe finds the ceiling under it', () => {
    // A capacity that fell where it was read calmly may come back: its probes stay eager.
    for (const [calm, readAt] of [
      [true, 3000],
      [false, 13_000], // a reading after a pause, its held rate granted 10 s since
    ] as const) {
      const peak = new CeilingPeak();
      peak.onCut(2000, calm);
      peak.fallen(readAt, 1000);
      peak.onCut(20_000, true);
      for (const at of [30_000, 60_000, 90_000]) peak.onProbe(at, 440, KEPT, false);
      expect(peak.fallen(90_000, 440)).toBe(true);
    }
  });

  it('counts a probe against a peak read after a pause only when the ceiling is a fallen one', () => {
    // A cold start's first probe, from its own reading, is no confirmation that a later ceiling fell.
    const peak = new CeilingPeak();
    peak.onCut(0, false);
    peak.fallen(1000, 4);
    peak.onProbe(2000, 4, KEPT, false);
    peak.onCut(3000, true);
    peak.onProbe(65_000, 1.9, KEPT, false);
    expect(peak.fallen(65_000, 1.9)).toBe(true);
  });

  it('counts a probe that found the ceiling a little lower against a peak read after a pause', () => {
    // Each refill over a pause moves a reading by a few percent: 20.5, 20.0, 20.5 req/s on a 16 req/s bucket.
    const peak = new CeilingPeak();
    peak.onCut(0, false);
    peak.fallen(1000, 72);
    peak.onCut(3000, true);
    peak.onProbe(30_000, 20, LOWER, false);
    peak.onProbe(60_000, 20.5, KEPT, false);
    expect(peak.fallen(60_000, 20.5)).toBe(false);
  });

  it('finds a ceiling below a proven peak by more than 5 %, never below an unproven one', () => {
    const peak = new CeilingPeak();
    peak.fallen(0, 100); // read calmly: proven
    expect(peak.below(1000, 90)).toBe(true);
    expect(peak.below(1000, 97)).toBe(false);
    const overRead = new CeilingPeak();
    overRead.onCut(0, false); // read soon after a pause
    overRead.fallen(1000, 100);
    expect(overRead.below(2000, 90)).toBe(false);
  });
});
