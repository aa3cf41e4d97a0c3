import { describe, expect, it } from 'vitest';
import {
  ClosureSpan,
  type LongClosure,
  rateAfterLongClosure,
} from '../../src/algorithms/closure-span.js';

/**
 * A silent penalty box met by `span`: `accepted` sends from `from` at `rate` (requests/s), the
 * last refused, the server found closed by a resume after a pause from `closedFrom`, and the
 * first send accepted again at `reopenedAt` (every pause over by then). Returns the closure.
 */
function blocked(
  span: ClosureSpan,
  {
    from,
    accepted,
    rate,
    closedFrom,
    reopenedAt,
  }: { from: number; accepted: number; rate: number; closedFrom: number; reopenedAt: number },
) {
  for (let k = 0; k < accepted; k++) span.reopened(from + (k * 1000) / rate, -Infinity);
  span.refused(rate);
  span.foundClosed(closedFrom);
  return span.reopened(reopenedAt, reopenedAt);
}

/** The closure reported, failing the test when there was none. */
function closure(reported: LongClosure | undefined): LongClosure {
  if (reported === undefined) throw new Error('no long closure reported');
  return reported;
}

describe('ClosureSpan', () => {
  it('cuts by 0.7 after a first long closure, by half when the next comes at the lower rate', () => {
    // Field seed 11 #97's shape: a 10 s window of 78.8 r/s behind a two-minute block, met at 219
    // r/s. Cut by 0.7 each time, it was blocked again at 153 and 107 r/s.
    const span = new ClosureSpan(0, 0);
    const first = blocked(span, {
      from: 0,
      accepted: 790,
      rate: 219,
      closedFrom: 3_600,
      reopenedAt: 145_000,
    });
    expect(first?.again).toBe(false);
    const after = rateAfterLongClosure(closure(first), 219);
    expect(after).toBeCloseTo(219 * 0.7, 5);
    span.settled(after);
    const second = blocked(span, {
      from: 145_010,
      accepted: 750,
      rate: after * 1.01, // the held rate read back through the margin
      closedFrom: 150_000,
      reopenedAt: 275_000,
    });
    expect(second?.again).toBe(true);
    expect(rateAfterLongClosure(closure(second), after)).toBeCloseTo(after * 1.01 * 0.5, 5);
  });

  it('cuts by 0.7 again when the next long closure came over the rate the first left (a probe)', () => {
    const span = new ClosureSpan(0, 0);
    blocked(span, { from: 0, accepted: 100, rate: 20, closedFrom: 5_000, reopenedAt: 40_000 });
    span.settled(14);
    const second = blocked(span, {
      from: 40_010,
      accepted: 600,
      rate: 25,
      closedFrom: 70_000,
      reopenedAt: 100_000,
    });
    expect(second?.again).toBe(false);
    expect(rateAfterLongClosure(closure(second), 25)).toBeCloseTo(25 * 0.7, 5);
  });

  it('never cuts under what the whole cycle granted', () => {
    // A minute's window closing at its boundary: 600 granted over the 61 s cycle at any rate.
    const span = new ClosureSpan(0, 0);
    blocked(span, { from: 0, accepted: 600, rate: 40, closedFrom: 15_000, reopenedAt: 61_000 });
    span.settled(28);
    const second = blocked(span, {
      from: 61_010,
      accepted: 600,
      rate: 15,
      closedFrom: 91_000,
      reopenedAt: 122_000,
    });
    expect(second?.again).toBe(true);
    expect(second?.cycleRate).toBeCloseTo(601 / 61, 5);
    expect(rateAfterLongClosure(closure(second), 15)).toBeCloseTo(601 / 61, 5);
  });
});
