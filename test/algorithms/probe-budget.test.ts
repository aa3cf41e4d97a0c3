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

  it('earns nothing with time when refusedShare is 0 (probing turned off stays off)', () => {
    const off = new ProbeBudget(0, 0.05, 0, 0);
    off.charge({ refusals: 1, pauseMs: 0 });
    send(off, 0.1, 600);
    expect(off.allows()).toBe(false);
  });
});
