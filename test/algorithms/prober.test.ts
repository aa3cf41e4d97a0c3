import { describe, expect, it } from 'vitest';
import { type CutReport, Prober } from '../../src/algorithms/prober.js';
import { SAME_CLOCKS } from './clocks.js';

/** A cut at `at` of the learned rate `current`, a probe's held rate before it being 30/s. */
const cut = (at: number, current: number): CutReport => ({
  at,
  current,
  heldBeforeProbe: 30,
  confirmed: false,
  refusal: true,
  windowMs: 1000,
  calm: true,
});

/** A prober whose probe above a 31/s ceiling was refused at 1 s (at 40/s). */
function refusedProbe(): Prober {
  const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
  prober.openBudget(0, 1);
  prober.setProbe(0);
  prober.onCut(cut(1000, 40), 31);
  return prober;
}

describe('Prober', () => {
  it('bills a refusal soon after a refused probe, at a rate above the one held before it, to that probe', () => {
    const prober = refusedProbe();
    const before = prober.budgetState(SAME_CLOCKS);
    prober.onCut(cut(3000, 33), 31); // the probe's reading (33/s) was too high
    expect(prober.budgetState(SAME_CLOCKS)).toEqual(before); // still the probe's open bill
  });

  it('does not bill a refusal at the rate held before the probe, nor a late one, to the probe', () => {
    for (const [at, current] of [
      [3000, 29], // the capacity fell below what was refusal-free before
      [30_000, 33], // long after
    ] as const) {
      const prober = refusedProbe();
      const before = prober.budgetState(SAME_CLOCKS)?.refusalCredit as number;
      prober.onCut(cut(at, current), 31);
      // The probe's bill (one refusal) is settled; this refusal starts an unpaid event.
      expect(prober.budgetState(SAME_CLOCKS)?.refusalCredit).toBeCloseTo(before - 1, 9);
    }
  });

  it('starts a probe only once the budget holds its cost, the hold is over and no pause is pending', () => {
    const prober = new Prober({ refusedShare: 0.5, pausedShare: 1 }); // cheap: a probe's worth after two requests
    prober.openBudget(0);
    const gate = { at: 1000, ceiling: 30, holdUntil: 0, pausedUntil: 0, quotaBinds: () => false };
    prober.maybeStart(gate);
    expect(prober.probeMs).toBeUndefined(); // nothing earned yet
    prober.onRequest();
    prober.onRequest();
    prober.maybeStart({ ...gate, holdUntil: 2000 });
    expect(prober.probeMs).toBeUndefined();
    prober.maybeStart({ ...gate, pausedUntil: 2000 });
    expect(prober.probeMs).toBeUndefined();
    prober.maybeStart({ ...gate, quotaBinds: () => true });
    expect(prober.probeMs).toBeUndefined();
    prober.maybeStart(gate);
    expect(prober.probeMs).toBe(0);
  });

  it('owes one probe per refused probe whose aftermath left the capacity unread', () => {
    const gate = { at: 5000, ceiling: 31, holdUntil: 0, pausedUntil: 0, quotaBinds: () => false };
    const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
    prober.openBudget(0); // nothing earned: no probe the budget would pay for
    prober.setProbe(0);
    prober.onCut(cut(1000, 40), 31); // a probe refused
    prober.onCut(cut(3000, 38), 31); // its aftermath, far below: the next probe owed
    prober.oweAftermath();
    prober.maybeStart(gate);
    expect(prober.probeMs).toBe(0);
    prober.setProbe(undefined); // stopped unrefused (as a latency alarm stops it)
    prober.onCut(cut(6000, 36), 31); // the same probe's aftermath again: owed once already
    prober.oweAftermath();
    prober.maybeStart({ ...gate, at: 7000 });
    expect(prober.probeMs).toBeUndefined(); // the budget's next probe
  });

  it('owes a probe again for a later refused probe whose aftermath left the capacity unread', () => {
    const gate = { at: 5000, ceiling: 31, holdUntil: 0, pausedUntil: 0, quotaBinds: () => false };
    const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
    prober.openBudget(0);
    prober.setProbe(0);
    prober.onCut(cut(1000, 40), 31);
    prober.onCut(cut(3000, 38), 31);
    prober.oweAftermath();
    prober.maybeStart(gate);
    prober.onCut(cut(6000, 40), 31); // the owed probe refused
    prober.onCut(cut(8000, 38), 31); // and its aftermath far below
    prober.oweAftermath();
    prober.maybeStart({ ...gate, at: 9000 });
    expect(prober.probeMs).toBe(0);
  });

  it('starts an owed probe once the hold and the pause are over, whatever the budget holds, and does not charge it', () => {
    const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
    prober.openBudget(0); // nothing earned: no probe the budget would pay for
    prober.onCut({ ...cut(1000, 40), heldBeforeProbe: 40 }, 0); // a held rate refused
    prober.owe();
    const gate = {
      at: 2000,
      ceiling: 20,
      holdUntil: 3000,
      pausedUntil: 0,
      quotaBinds: () => false,
    };
    prober.maybeStart(gate);
    expect(prober.probeMs).toBeUndefined(); // the hold first
    prober.maybeStart({ ...gate, at: 3000, pausedUntil: 4000 });
    expect(prober.probeMs).toBeUndefined(); // and the pause
    prober.onTime(4000);
    const before = prober.budgetState(SAME_CLOCKS);
    prober.maybeStart({ ...gate, at: 4000 });
    expect(prober.probeMs).toBe(0);
    prober.onCut(cut(5000, 24), 20); // the owed probe refused
    prober.onTime(30_000);
    prober.onCut(cut(30_000, 19), 20); // a later cut settles the probe's event: no charge
    const after = prober.budgetState(SAME_CLOCKS);
    expect(after?.refusalCredit).toBeCloseTo((before?.refusalCredit ?? 0) + 0.52, 9);
    expect(after?.pauseCostMs).toBe(before?.pauseCostMs);
    // Owed once: the next probe waits for the budget again.
    prober.maybeStart({ ...gate, at: 31_000, holdUntil: 0 });
    expect(prober.probeMs).toBeUndefined();
  });

  it('takes a refused probe that left the ceiling where it started for a confirmation: the next waits longer', () => {
    // A slow scope's reading, four or five sends over the probe's climb, cannot confirm the
    // ceiling within 5 %; the ceiling the probe's event left (a refusal-free rate is kept) can.
    for (const [left, patience] of [
      [31, 2], // where the probe started: found where it was, twice the wait for the next
      [29.5, 1], // lower: the capacity moved, the next probe as soon as the budget allows
    ] as const) {
      const prober = refusedProbe(); // started from 31/s, refused at 40/s
      prober.onCut(cut(30_000, 30), left); // a later cut settles the probe's bill
      expect(prober.budgetState(SAME_CLOCKS)?.patience).toBe(patience);
    }
  });

  it('probes a fallen ceiling of a slow scope like any other once two probes in a row found it where it was', () => {
    // A cold start's first reading (4 req/s) made 1 req/s a fallen ceiling for minutes: probed
    // eagerly, at half price and with no patience, a probe every 25 s at the earning floor's
    // 2 requests a second, each refused — 3 % of a scope sending one request a second.
    const patienceAfterTwo = (ceiling: number): number | undefined => {
      const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
      prober.openBudget(0);
      const gate = {
        at: 0,
        ceiling: 4 * ceiling,
        holdUntil: 0,
        pausedUntil: 0,
        quotaBinds: () => false,
      };
      prober.maybeStart(gate); // the peak, 4× the ceiling probed below
      for (const at of [30_000, 60_000, 90_000]) {
        prober.setProbe(0);
        prober.onCut(cut(at, 1.2 * ceiling), ceiling); // refused; its event left the ceiling
      }
      return prober.budgetState(SAME_CLOCKS)?.patience;
    };
    expect(patienceAfterTwo(1)).toBe(2); // no longer fallen: a regular probe, its patience grown
    // A scope earning from its own requests keeps probing a fallen ceiling eagerly.
    expect(patienceAfterTwo(30)).toBe(1);
  });

  it('takes probes that find a ceiling a few percent either side for confirmations under a peak read after a pause', () => {
    // A 16 req/s bucket of burst 17 answering Retry-After: 2: its slow start read 72 req/s after a
    // pause, and each probe's event left the ceiling at 20 or 19.5 req/s (the refill over each
    // pause), one lower than where it started breaking the count: every probe eager, 19 % paused.
    const prober = new Prober({ refusedShare: 0.01, pausedShare: 0.05 });
    prober.openBudget(0);
    prober.onCut({ ...cut(0, 80), calm: false }, 0); // the reading soon after a pause
    const gate = { at: 1000, ceiling: 72, holdUntil: 0, pausedUntil: 0, quotaBinds: () => false };
    prober.maybeStart(gate); // the peak: 72, unproven
    for (const [at, left] of [
      [30_000, 20],
      [60_000, 19.5], // the first probe's event left it 2.5 % lower
      [90_000, 20], // the second's, where it started
    ] as const) {
      prober.setProbe(0);
      prober.onCut(cut(at, 24), left);
    }
    // Two in a row near where they started: 20 is no longer a fallen one, the patience grows.
    expect(prober.budgetState(SAME_CLOCKS)?.patience).toBe(2);
  });
});
