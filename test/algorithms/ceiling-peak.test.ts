import { describe, expect, it } from 'vitest';
import { CeilingPeak } from '../../src/algorithms/ceiling-peak.js';

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
    peak.onProbe(30_000, 1, true);
    expect(peak.fallen(30_000, 1)).toBe(true); // one probe may have met a cold start's under-read
    peak.onProbe(60_000, 1, true);
    expect(peak.fallen(60_000, 1)).toBe(false); // the capacity did not come back: 1 is the peak
    expect(peak.fallen(61_000, 0.7)).toBe(true); // and a fall from it is a fall
  });

  it('counts only probes in a row: one that moved the ceiling starts the count again', () => {
    const peak = new CeilingPeak();
    peak.fallen(0, 4);
    peak.onProbe(30_000, 1, true);
    peak.onProbe(60_000, 1, false);
    peak.onProbe(90_000, 1, true);
    expect(peak.fallen(90_000, 1)).toBe(true);
  });
});
