import { describe, expect, it } from 'vitest';
import { CapEvidence } from '../../src/controller/cap-evidence.js';
import { sample } from '../algorithms/samples.js';

const refused = (at: number, inflight: number) => sample({ at, kind: 'throttled', inflight });

/** Evidence that has seen successes at 1, 2 and 3 in flight. */
function acceptedUpTo3(): CapEvidence {
  const evidence = new CapEvidence();
  for (const inflight of [1, 2, 3]) evidence.onAccepted(inflight, 0);
  return evidence;
}

describe('CapEvidence', () => {
  it('shows a cap once refusals of three separate congestion events came above every success', () => {
    const evidence = acceptedUpTo3();
    evidence.onRefused(refused(1000, 4));
    evidence.onAccepted(3, 2000);
    evidence.onRefused(refused(9000, 5));
    expect(evidence.shown).toBe(false);
    evidence.onRefused(refused(19_000, 4));
    expect(evidence.shown).toBe(true);
    expect(evidence.explains(4)).toBe(true);
    expect(evidence.explains(3)).toBe(false);
  });

  it('takes nothing from a refusal before any success', () => {
    const evidence = new CapEvidence();
    evidence.onAccepted(3, 0);
    evidence.onRefused(refused(9000, 5));
    evidence.onRefused(refused(19_000, 5));
    expect(evidence.shown).toBe(false);
  });

  it('counts refusals of one burst once: sent before the last counted one arrived', () => {
    const evidence = acceptedUpTo3();
    evidence.onRefused(sample({ at: 1000, sentAt: 900, kind: 'throttled', inflight: 4 }));
    evidence.onRefused(sample({ at: 1010, sentAt: 950, kind: 'throttled', inflight: 5 }));
    expect(evidence.shown).toBe(false);
  });

  it('counts refusals sent within a success’s round trip of the last one’s arrival as one event', () => {
    // On 2 s pages, refusals a few hundred ms apart are one round trip's: the successes sent
    // around them have not answered yet. A refusal sent a round trip after the last one arrived is
    // a new event.
    const evidence = new CapEvidence();
    for (const inflight of [1, 2, 3]) evidence.onAccepted(inflight, 0, 2000);
    const refusedSent = (sentAt: number) =>
      evidence.onRefused(sample({ at: sentAt + 2000, sentAt, kind: 'throttled', inflight: 4 }));
    for (const sentAt of [1000, 1300, 1600, 5500]) refusedSent(sentAt);
    expect(evidence.shown).toBe(false);
    refusedSent(9700);
    expect(evidence.shown).toBe(false);
    refusedSent(13_800);
    expect(evidence.shown).toBe(true);
  });

  it('forgets on a refusal below a success (a rate limit refuses at any concurrency)', () => {
    const evidence = acceptedUpTo3();
    evidence.onRefused(refused(1000, 4));
    evidence.onRefused(refused(5000, 4));
    evidence.onRefused(refused(7000, 2));
    evidence.onRefused(refused(9000, 4));
    expect(evidence.shown).toBe(false);
  });

  it('remembers successes for half a minute or more: a count reached now and then is no cap', () => {
    const evidence = acceptedUpTo3();
    evidence.onAccepted(6, 0);
    for (let at = 0; at < 40_000; at += 100) evidence.onAccepted(3, at);
    for (const at of [41_000, 49_000, 55_000]) evidence.onRefused(refused(at, 4));
    expect(evidence.shown).toBe(false);
    for (let at = 40_000; at < 70_000; at += 100) evidence.onAccepted(3, at);
    for (const at of [71_000, 79_000, 85_000]) evidence.onRefused(refused(at, 4));
    expect(evidence.shown).toBe(true);
  });

  it('forgets on a success past the fewest refused; equal counts say nothing', () => {
    const evidence = acceptedUpTo3();
    evidence.onRefused(refused(1000, 4));
    evidence.onAccepted(4, 2000); // a response still on its way when the next request left
    evidence.onRefused(refused(5000, 4)); // as many as a success: neither way
    evidence.onRefused(refused(9000, 5));
    evidence.onRefused(refused(15_000, 5));
    expect(evidence.shown).toBe(true);
    evidence.onAccepted(5, 16_000);
    expect(evidence.shown).toBe(false);
  });
  describe('under timing noise (refusals come back faster than any page)', () => {
    it('reads counts exactly when a refusal takes as long as a page, or under half an answer is on its way', () => {
      const evidence = new CapEvidence();
      for (let inflight = 1; inflight <= 20; inflight++) evidence.onAccepted(inflight, 0, 100);
      for (const at of [1000, 9000, 19_000])
        evidence.onRefused(sample({ at, sentAt: at - 100, kind: 'throttled', inflight: 19 }));
      expect(evidence.shown).toBe(false);
      const slow = new CapEvidence();
      for (const inflight of [1, 2]) slow.onAccepted(inflight, 0, 100);
      for (const at of [1000, 9000, 19_000])
        slow.onRefused(sample({ at, sentAt: at - 10, kind: 'throttled', inflight: 2 }));
      expect(slow.shown).toBe(false);
    });

    // Pages of 100 ms up to 20 in flight; refusals back in 10 ms: about two answers on their way
    // at 19 or 21 in flight (19 × 10 / 100, 21 × 10 / 100, rounded) — a slack of 2.
    const noisy = (at: number, inflight: number) =>
      sample({ at, sentAt: at - 10, kind: 'throttled', inflight });
    const acceptedUpTo20 = () => {
      const evidence = new CapEvidence();
      for (let inflight = 1; inflight <= 20; inflight++) evidence.onAccepted(inflight, 0, 100);
      return evidence;
    };

    it('counts refusals within the slack of the most any success was sent at', () => {
      const evidence = acceptedUpTo20();
      for (const at of [1000, 9000, 19_000]) evidence.onRefused(noisy(at, 19));
      expect(evidence.shown).toBe(true);
      expect(evidence.explains(17)).toBe(true);
      expect(evidence.explains(16)).toBe(false);
      const exact = acceptedUpTo20();
      for (const at of [1000, 9000, 19_000]) evidence.onRefused(refused(at, 19));
      expect(exact.shown).toBe(false);
    });

    it('forgets on a success past the fewest refused by more than the slack, or a refusal under the successes by more', () => {
      const evidence = acceptedUpTo20();
      for (const at of [1000, 9000, 19_000]) evidence.onRefused(noisy(at, 21));
      evidence.onAccepted(23, 20_000, 100);
      expect(evidence.shown).toBe(true);
      evidence.onAccepted(24, 20_100, 100);
      expect(evidence.shown).toBe(false);
      const under = acceptedUpTo20();
      for (const at of [1000, 9000]) under.onRefused(noisy(at, 21));
      under.onRefused(noisy(15_000, 17));
      under.onRefused(noisy(25_000, 21));
      expect(under.shown).toBe(false);
    });

    it('counts a refusal at the top of the counts successes were sent at, not above every one', () => {
      // Answers come in bunches: now and then a success counts several still on their way, and the
      // most any success was sent at is such an outlier's. Refusals back in 2 ms (a slack of 0 at
      // 15 in flight on 100 ms pages) at a count that 1 % of the successes reached show the cap;
      // at one that 10 % reached, or read exactly, they do not.
      const evidence = (top: number, rttMs: number) => {
        const made = new CapEvidence();
        for (let i = 0; i < 200; i++) made.onAccepted(i < top ? 15 : 10 + (i % 5), i * 10, 100);
        for (const at of [3000, 9000, 19_000])
          made.onRefused(sample({ at, sentAt: at - rttMs, kind: 'throttled', inflight: 15 }));
        return made;
      };
      expect(evidence(2, 2).shown).toBe(true);
      expect(evidence(2, 2).explains(15)).toBe(true);
      expect(evidence(20, 2).shown).toBe(false);
      expect(evidence(2, 0).shown).toBe(false);
    });
  });
});
