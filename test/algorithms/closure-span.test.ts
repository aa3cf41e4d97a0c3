import { describe, expect, it } from 'vitest';
import {
  closurePriceMs,
  type LongClosure,
  rateAfterLongClosure,
} from '../../src/algorithms/closure-span.js';

/** A long closure of `closedMs` ending a cycle of `cycleMs` that granted `accepted` requests. */
const closure = (closedMs: number, cycleMs: number, accepted: number): LongClosure => ({
  closedMs,
  cycleMs,
  cycleRate: (accepted * 1000) / cycleMs,
  trippedRate: Number.POSITIVE_INFINITY,
  remainderRate: Number.POSITIVE_INFINITY,
});

describe('closurePriceMs', () => {
  it('prices a penalty box block at about its length', () => {
    // 200 s held at 10 r/s, a probe's spell, then blocked 60 s: 2,050 granted over 265 s.
    const priced = closurePriceMs(closure(60_000, 265_000, 2050), 10);
    expect(priced).toBeCloseTo(60_000, -3);
  });

  it('prices nothing for a window that closed at its boundary, its count granted', () => {
    // A minute's window of 600 held at 9.5 r/s, probed over and closed 20 s before its
    // boundary: 3,000 granted over five windows, more than the held rate would have sent.
    expect(closurePriceMs(closure(20_000, 300_000, 3000), 9.5)).toBe(0);
  });

  it('prices nothing where the rate after the cut is what the cycle granted', () => {
    // A minute's sliding log probed far over (family seed 1 #95): the cut lands on the cycle's
    // grant, which the log gives at any rate above it.
    const probed = closure(28_000, 64_000, 22_500);
    expect(closurePriceMs(probed, probed.cycleRate)).toBe(0);
  });
});

describe('rateAfterLongClosure', () => {
  it('cuts the rate that tripped the closure by 0.7, no lower than the cycle granted', () => {
    expect(rateAfterLongClosure(closure(60_000, 120_000, 600), 40)).toBeCloseTo(28, 5);
    expect(rateAfterLongClosure(closure(30_000, 60_000, 2100), 40)).toBeCloseTo(35, 5);
  });

  it('holds no more than a penalty remainder read: a window outlasting its block', () => {
    // Held at 34 a second, a minute's window still counting the spell before the block refused
    // the resume after 22: the count before (171 over its spell and block, 65 s) reads 2.63.
    const remainder = { ...closure(121_000, 126_000, 193), remainderRate: 171 / 65 };
    expect(rateAfterLongClosure(remainder, 34)).toBeCloseTo(171 / 65, 5);
  });
});
