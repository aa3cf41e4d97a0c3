import { describe, expect, it } from 'vitest';
import { CapTrial } from '../../src/controller/cap-trial.js';
import { sample } from '../algorithms/samples.js';

const refused = (at: number, sentAt: number, inflight: number) =>
  sample({ at, sentAt, kind: 'throttled', inflight });
const accepted = (sentAt: number, inflight: number) =>
  sample({ at: sentAt + 100, sentAt, inflight });

/**
 * A trial begun by a refusal at 10 in flight (cap 9), arrived at 1000 ms after a success of
 * 100 ms; answered at once (no timing noise) unless sent `rttMs` earlier.
 */
function begun(rttMs = 0): CapTrial {
  const trial = new CapTrial();
  trial.onAccepted(accepted(800, 5));
  expect(trial.judge(refused(1000, 1000 - rttMs, 10), true, 8)).toBe('tentative');
  return trial;
}

describe('CapTrial', () => {
  it('begins only at the first refusal, unpaced, above every success and at 3 or more in flight', () => {
    expect(new CapTrial().judge(refused(1000, 990, 10), false, 8)).toBe('other');
    expect(new CapTrial().judge(refused(1000, 990, 8), true, 8)).toBe('other');
    expect(new CapTrial().judge(refused(1000, 990, 2), true, 1)).toBe('other');
    const late = new CapTrial();
    late.judge(refused(1000, 990, 8), true, 8);
    expect(late.judge(refused(2000, 1990, 10), true, 8)).toBe('other');
  });

  it('holds the burst that began it as the cap’s, whatever its in flight', () => {
    const trial = begun();
    expect(trial.judge(refused(1001, 995, 12), true, 8)).toBe('cap');
    expect(trial.judge(refused(1002, 980, 9), true, 8)).toBe('cap');
  });

  it('is refuted by a refusal sent after it began at no more in flight than the cap', () => {
    const trial = begun();
    expect(trial.judge(refused(2000, 1900, 9), true, 9)).toBe('refuted');
    expect(trial.judge(refused(2100, 2000, 12), true, 9)).toBe('other');
  });

  it('is refuted by a success past the cap sent before it began, ended by one sent after', () => {
    const before = begun();
    expect(before.onAccepted(accepted(980, 10))).toBe('refuted');
    const after = begun();
    expect(after.onAccepted(accepted(1500, 9))).toBeUndefined();
    expect(after.onAccepted(accepted(1600, 10))).toBeUndefined();
    expect(after.judge(refused(2000, 1900, 12), true, 10)).toBe('other');
  });

  it('is refuted, when blind (begun before any success), by any success past the cap and by its burst refused under it', () => {
    const blind = new CapTrial(true);
    expect(blind.judge(refused(30, 0, 4), true, 0)).toBe('tentative');
    expect(blind.onAccepted(accepted(0, 3))).toBeUndefined();
    expect(blind.onAccepted(accepted(2100, 4))).toBe('refuted');
    expect(blind.refuted).toBe(true);
    const burst = new CapTrial(true);
    expect(burst.judge(refused(30, 0, 8), true, 0)).toBe('tentative');
    expect(burst.judge(refused(31, 0, 1), true, 0)).toBe('refuted');
  });

  it('holds refusals past the cap as the cap’s until a success past it or a refusal under it', () => {
    const check = begun();
    expect(check.judge(refused(2000, 1900, 10), true, 9)).toBe('cap');
    expect(check.judge(refused(3000, 2900, 11), true, 9)).toBe('cap');
    expect(check.judge(refused(4000, 3900, 8), true, 9)).toBe('refuted');
    const risen = begun();
    expect(risen.judge(refused(2000, 1900, 10), true, 9)).toBe('cap');
    expect(risen.onAccepted(accepted(3000, 10))).toBeUndefined();
    expect(risen.judge(refused(4000, 3900, 11), false, 10)).toBe('other');
  });

  describe('under timing noise (the refusal that began it came back faster than any page)', () => {
    // Refused at 10 in 10 ms, pages of 100 ms: 10 × 10 / 100 = one answer on its way — a slack of one.
    it('takes a success past the cap by no more than the slack as the cap that high', () => {
      const burst = begun(10);
      expect(burst.onAccepted(accepted(950, 10))).toBe('raised');
      expect(burst.onAccepted(accepted(960, 11))).toBe('raised');
      const check = begun(10);
      expect(check.onAccepted(accepted(1500, 10))).toBe('raised');
      expect(check.refuted).toBe(false);
      // Without noise the same success refutes it.
      expect(begun().onAccepted(accepted(950, 10))).toBe('refuted');
    });

    it('holds a refusal sent just before others that came back after it as the cap’s: they may have reached the server first', () => {
      const trial = begun(10);
      // Sent at 7 in flight, back 5 ms later with 9 others out: the server may have had 10.
      const overtaken = sample({ at: 2105, sentAt: 2100, kind: 'throttled', inflight: 7 });
      expect(trial.judge({ ...overtaken, outstanding: 9 }, true, 9)).toBe('cap');
      // Back after as long as a page: no noise shown, its count is taken as sent.
      const slow = sample({ at: 2300, sentAt: 2200, kind: 'throttled', inflight: 9 });
      expect(trial.judge({ ...slow, outstanding: 12 }, true, 9)).toBe('refuted');
    });

    it('is refuted by a success of the burst past the cap by more than the slack, and ended by such a check', () => {
      const burst = begun(10);
      expect(burst.onAccepted(accepted(950, 11))).toBe('refuted');
      const check = begun(10);
      expect(check.onAccepted(accepted(1500, 11))).toBeUndefined();
      expect(check.judge(refused(2000, 1900, 12), true, 11)).toBe('other');
    });

    it('takes no noise from a refusal that took as long as a page: the server may take that long to refuse', () => {
      const trial = new CapTrial();
      trial.onAccepted(accepted(800, 5));
      expect(trial.judge(refused(1000, 900, 10), true, 8)).toBe('tentative');
      expect(trial.onAccepted(accepted(950, 10))).toBe('refuted');
    });

    it('gives a blind trial no slack', () => {
      const blind = new CapTrial(true);
      expect(blind.judge(refused(30, 20, 4), true, 0)).toBe('tentative');
      expect(blind.onAccepted(accepted(500, 4))).toBe('refuted');
    });

    it('stops holding back a refusal past what was accepted once a success sent after the refutation answers', () => {
      const noisy = begun(10);
      expect(noisy.judge(refused(2000, 1900, 5), true, 9)).toBe('refuted');
      expect(noisy.lagging).toBe(true);
      noisy.onAccepted(accepted(1950, 5));
      expect(noisy.lagging).toBe(true);
      noisy.onAccepted(accepted(2050, 5));
      expect(noisy.lagging).toBe(false);
      const exact = begun();
      expect(exact.judge(refused(2000, 1900, 5), true, 9)).toBe('refuted');
      exact.onAccepted(accepted(2050, 5));
      expect(exact.lagging).toBe(true);
    });
  });
});
