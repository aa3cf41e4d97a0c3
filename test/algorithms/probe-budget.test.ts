import { describe, expect, it } from 'vitest';
import { ProbeBudget } from '../../src/algorithms/probe-budget.js';

/** The refusal credit a budget holds now. */
const credit = (budget: ProbeBudget): number =>
  budget.snapshot({ monotonic: 0, wall: 0 }).refusalCredit;

/** Feeds `perSecond` requests a second over `seconds`, bringing the time up to date after each. */
function send(budget: ProbeBudget, perSecond: number, seconds: number, from = 0): number {
  let at = from;
  for (let i = 0; i < perSecond * seconds; i++) {
    at = from + (i * 1000) / perSecond;
    budget.onRequest();
    budget.onTime(at);
  }
  budget.onTime(from + seconds * 1000);
  return from + seconds * 1000;
}

describe('ProbeBudget', () => {
  it('earns refusedShare of a refusal per request sent', () => {
    const budget = new ProbeBudget(0.01, 0.05, 0);
    budget.charge({ refusals: 1, pauseMs: 0 }); // spend the starting credit: 0 -> -1
    const before = credit(budget);
    send(budget, 50, 1);
    expect(credit(budget) - before).toBeCloseTo(0.5, 2);
  });

  it('a slow scope earns more than its requests pay for, so a risen capacity is still looked for', () => {
    const slow = new ProbeBudget(0.01, 0.05, 0, 1);
    slow.charge({ refusals: 1, pauseMs: 0 }); // a probe paid: no credit left
    send(slow, 0.5, 40); // 20 requests in 40 s
    // The earning floor pays for requests not sent: more than the 20 sent earn, not yet a probe.
    expect(credit(slow)).toBeGreaterThan(20 * 0.01);
    expect(slow.allows()).toBe(false); // not a probe every 40 s
    send(slow, 0.5, 20, 40_000);
    expect(slow.allows()).toBe(true); // a probe about a minute after the last
  });

  it('the floor adds nothing to a scope sending faster than it', () => {
    const fast = new ProbeBudget(0.01, 0.05, 0);
    fast.charge({ refusals: 1, pauseMs: 0 });
    send(fast, 10, 5);
    expect(credit(fast)).toBeCloseTo(-1 + 0.5, 2);
  });

  it("takes back a guess's check once a cut made it unneeded, never below zero by it", () => {
    const budget = new ProbeBudget(0.01, 0.05, 0, 1); // a guessed ceiling: a probe's worth to check it
    expect(budget.allows()).toBe(true);
    budget.forgo(1);
    expect(budget.allows()).toBe(false);
    expect(credit(budget)).toBe(0);
    budget.forgo(1); // nothing left to take
    expect(credit(budget)).toBe(0);
    budget.charge({ refusals: 1, pauseMs: 0 }); // in debt
    budget.forgo(1);
    expect(credit(budget)).toBeCloseTo(-1, 6); // a debt is not deepened
  });

  it('earns nothing with time when refusedShare is 0 (probing turned off stays off)', () => {
    const off = new ProbeBudget(0, 0.05, 0, 0);
    off.charge({ refusals: 1, pauseMs: 0 });
    send(off, 0.1, 600);
    expect(off.allows()).toBe(false);
  });

  it("pays a probe's own refusals times the patience, those of its aftermath once each", () => {
    const charged = (own?: { refusals: number; pauseMs: number }): number => {
      const budget = new ProbeBudget(0.01, 0.05, 0);
      budget.charge({ refusals: 1, pauseMs: 0, confirmed: true }); // patience 2
      budget.charge({ refusals: 1, pauseMs: 0, confirmed: true }); // patience 4
      send(budget, 100, 20); // credit full: two probes' worth at patience 4
      const before = credit(budget);
      budget.charge({ refusals: 3, pauseMs: 0, own });
      return before - credit(budget);
    };
    expect(charged({ refusals: 1, pauseMs: 0 })).toBeCloseTo(1 * 4 + 2, 5);
    expect(charged()).toBeCloseTo(3 * 4, 5); // all of it the probe's own
  });

  it('lets patience stretch the wait no longer than about 20 s under a watched ceiling, where refusals are earned sooner', () => {
    /** The patience after ten probes that found the ceiling where it was, each pausing 1 s. */
    const patience = (watched?: number): number => {
      const budget = new ProbeBudget(0.01, 0.05, 0);
      for (let i = 0; i < 10; i++)
        budget.charge({ refusals: 1, pauseMs: 1000, confirmed: true }, false, watched);
      return budget.snapshot({ monotonic: 0, wall: 0 }).patience;
    };
    // A 1 s pause at 5 % of the time is 20 s of earning already: no patience on top.
    expect(patience(100)).toBeLessThan(1.1);
    expect(patience()).toBe(4); // a ceiling not watched: the full patience
    // At 1 req/s a probe's refusal takes 50 s to earn: watching does not make it cheaper.
    expect(patience(1)).toBe(4);
  });
});
