import { describe, expect, it } from 'vitest';
import { CapTrial } from '../../src/controller/cap-trial.js';
import { sample } from '../algorithms/samples.js';

const refused = (at: number, sentAt: number, inflight: number) =>
  sample({ at, sentAt, kind: 'throttled', inflight });
const accepted = (sentAt: number, inflight: number) =>
  sample({ at: sentAt + 100, sentAt, inflight });

/** A trial begun by a refusal at 10 in flight (cap 9), arrived at 1000 ms. */
function begun(): CapTrial {
  const trial = new CapTrial();
  expect(trial.judge(refused(1000, 990, 10), true, 8)).toBe('tentative');
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

  it('reads a blind trial’s refusal at the cap that met more as it came back, under timing noise, as the cap’s', () => {
    const noisy = new CapTrial(true);
    noisy.judge(refused(30, 0, 4), true, 0);
    noisy.onAccepted(accepted(0, 1)); // pages take 100 ms
    // The check and the send replacing an answered one leave together; the one counted 3 came last.
    const check = sample({
      at: 2010,
      sentAt: 2000,
      kind: 'throttled',
      inflight: 3,
      outstanding: 3,
    });
    expect(noisy.judge(check, true, 3)).toBe('cap');
    expect(check.inflight).toBe(4);
    expect(noisy.onAccepted(accepted(2000, 4))).toBe('held');
    expect(noisy.refuted).toBe(false);
    // Answered at once (no noise), the same count is exact: a rate limit's refusal under the cap.
    const exact = new CapTrial(true);
    exact.judge(refused(30, 0, 4), true, 0);
    exact.onAccepted(accepted(0, 1));
    const inOrder = sample({
      at: 2000,
      sentAt: 2000,
      kind: 'throttled',
      inflight: 3,
      outstanding: 3,
    });
    expect(exact.judge(inOrder, true, 3)).toBe('refuted');
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
  it('stops holding back a refusal past what was accepted, under timing noise, once a success sent after the refutation answers', () => {
    // Refused at 10 in 10 ms where pages take 100 ms: the server answered at once, the 10 ms are noise.
    const trial = (rttMs: number) => {
      const made = new CapTrial();
      made.onAccepted(accepted(800, 5));
      expect(made.judge(refused(1000, 1000 - rttMs, 10), true, 8)).toBe('tentative');
      expect(made.judge(refused(2000, 1900, 5), true, 9)).toBe('refuted');
      return made;
    };
    const noisy = trial(10);
    expect(noisy.lagging).toBe(true);
    noisy.onAccepted(accepted(1950, 5));
    expect(noisy.lagging).toBe(true);
    noisy.onAccepted(accepted(2050, 5));
    expect(noisy.lagging).toBe(false);
    // Answered at once, or as slowly as a page (the server may take that long to refuse): no noise shown.
    for (const rttMs of [0, 100]) {
      const exact = trial(rttMs);
      exact.onAccepted(accepted(2050, 5));
      expect(exact.lagging).toBe(true);
    }
  });

  describe('under timing noise, by how the sends after the refusal that began it were answered', () => {
    /** Pages of 100 ms; a trial begun by a refusal at 10 in flight (cap 9) sent at 990, back at 996: noise. */
    const noisyBegun = (): CapTrial => {
      const trial = new CapTrial();
      trial.onAccepted(accepted(800, 5));
      expect(trial.judge(refused(996, 990, 10), true, 8)).toBe('tentative');
      return trial;
    };
    const refusedBack = (at: number, sentAt: number, inflight: number, outstanding: number) =>
      sample({ at, sentAt, kind: 'throttled', inflight, outstanding });

    it('holds a success of the burst past the cap where they were granted, and finds the cap lower as sending resumes', () => {
      const trial = noisyBegun();
      // Sent with the refused request and after it: granted, past the cap by a count answers on their way inflate.
      expect(trial.onAccepted(accepted(991, 11))).toBe('held');
      expect(trial.onAccepted(accepted(993, 12))).toBe('held');
      // Resuming: a burst of nine sent at once, one refused as it met the cap (eight others out).
      expect(trial.judge(refusedBack(2004, 2000, 4, 8), true, 12)).toBe('lowered');
      // One of the same burst that met more than the cap as it came back: the cap's, whatever its count.
      expect(trial.judge(refusedBack(2005, 2000, 2, 9), true, 12)).toBe('cap');
      // Its peer past the lowered cap, sent in the same instant, reached the server first.
      expect(trial.onAccepted(accepted(2000, 9))).toBe('held');
      expect(trial.refuted).toBe(false);
      // Refused under the cap with few out: a rate limit's refusal after all.
      expect(trial.judge(refusedBack(3004, 3000, 3, 2), true, 12)).toBe('refuted');
    });

    it('finds the cap lower only as sending first resumes: later, a refusal at the cap held is the noise’s', () => {
      const trial = noisyBegun();
      expect(trial.onAccepted(accepted(993, 12))).toBe('held');
      expect(trial.onAccepted(accepted(2000, 9))).toBeUndefined();
      expect(trial.judge(refusedBack(3004, 3000, 4, 8), true, 12)).toBe('refuted');
    });

    it('is refuted by such a success where they were refused more, at once', () => {
      const trial = noisyBegun();
      expect(trial.judge(refused(997, 992, 10), true, 8)).toBe('cap');
      expect(trial.judge(refused(998, 994, 11), true, 8)).toBe('cap');
      expect(trial.onAccepted(accepted(991, 11))).toBe('refuted');
      expect(trial.refuted).toBe(true);
    });

    it('is refuted once sending resumes where the rest of them were refused, and by a refusal under the cap', () => {
      const trial = noisyBegun();
      expect(trial.onAccepted(accepted(991, 11))).toBe('held');
      expect(trial.judge(refused(1095, 992, 10), true, 11)).toBe('cap');
      expect(trial.judge(refused(1096, 994, 10), true, 11)).toBe('cap');
      expect(trial.judge(refusedBack(2004, 2000, 9, 8), true, 11)).toBe('refuted');
      const exact = new CapTrial();
      exact.onAccepted(accepted(800, 5));
      // Without noise (refused in no time), as before: a success of the burst past the cap refutes it.
      expect(exact.judge(refused(1000, 1000, 10), true, 8)).toBe('tentative');
      expect(exact.onAccepted(accepted(995, 11))).toBe('refuted');
    });
  });
});
