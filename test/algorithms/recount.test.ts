import { describe, expect, it } from 'vitest';
import {
  FIRST_RECOUNT_SPAN_MS,
  firstCeilingRecount,
  grantRecount,
  probeRecount,
  recountedCeiling,
} from '../../src/algorithms/recount.js';
import { sample } from './samples.js';

const refusal = (sentAt: number, at: number, retryAfterMs?: number) =>
  sample({
    sentAt,
    at,
    kind: 'throttled',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe('recounts: a ceiling measured again by send time once the outcomes are in', () => {
  it('counts the first ceiling over the sending just before the refusal, leaving out pauses', () => {
    const plain = firstCeilingRecount(refusal(10_000, 10_050));
    expect(plain.to).toBe(10_000);
    expect(plain.to - plain.from).toBe(plain.spanMs);
    const paused = firstCeilingRecount(refusal(10_000, 10_050), 300);
    expect(paused.to - paused.from).toBe(paused.spanMs + 300); // the paused time is not sending
    expect(paused.raiseOnly).toBe(true);
  });

  it('is due only once the outcomes it counts can be in: after the pause and two round trips', () => {
    const quick = firstCeilingRecount(refusal(10_000, 10_050));
    expect(quick.at).toBeGreaterThanOrEqual(10_050 + 2 * 50);
    expect(quick.at).toBeGreaterThanOrEqual(10_050 + FIRST_RECOUNT_SPAN_MS);
    const slow = firstCeilingRecount(refusal(10_000, 12_000));
    expect(slow.at).toBeGreaterThanOrEqual(12_000 + 2 * 2000);
    const paused = grantRecount(
      refusal(10_000, 10_050, 7000),
      { from: 8000, to: 10_000, spanMs: 2000 },
      20,
    );
    expect(paused.at).toBeGreaterThanOrEqual(10_050 + 7000);
  });

  it('waits for the pages sent with the refused request: twice the accepted round trip', () => {
    // A 429 is answered in 50 ms, a page in 1.7 s: at a second the count would
    // miss most of the sends it is about.
    const slowPages = probeRecount(refusal(10_000, 10_050), 2000, { min: 0, max: 100 }, 1700);
    expect(slowPages.at).toBeGreaterThanOrEqual(10_000 + 2 * 1700);
    const first = firstCeilingRecount(refusal(10_000, 10_050), 0, 1700);
    expect(first.at).toBeGreaterThanOrEqual(10_000 + 2 * 1700);
    const quickPages = probeRecount(refusal(10_000, 10_050), 2000, { min: 0, max: 100 }, 80);
    expect(quickPages.at).toBe(10_050 + FIRST_RECOUNT_SPAN_MS);
  });

  it('a first count only raises the ceiling', () => {
    const recount = firstCeilingRecount(refusal(10_000, 10_050));
    const span = recount.spanMs / 1000;
    expect(recountedCeiling(recount, { count: 30 * span, fromMs: recount.from }, 20)).toBeCloseTo(
      30,
      9,
    );
    expect(
      recountedCeiling(recount, { count: 10 * span, fromMs: recount.from }, 20),
    ).toBeUndefined();
  });

  it('a count after a pause stays between the deepest cut and the rate that failed', () => {
    const window = { from: 8000, to: 10_000, spanMs: 2000 };
    const recount = grantRecount(refusal(10_000, 10_050, 1000), window, 20);
    const ceiling = (count: number) => recountedCeiling(recount, { count, fromMs: 8000 }, 15);
    expect(ceiling(2 * 50)).toBe(20); // counted 50/s: no more than the 20/s that failed
    const low = ceiling(2 * 1) as number; // counted 1/s: not below the deepest cut
    expect(low).toBeGreaterThanOrEqual(10);
    expect(low).toBeLessThan(15);
    expect(ceiling(2 * 17)).toBeCloseTo(17, 9); // in between: the count
  });

  it('a probe’s count stays between the ceiling it started from and the rate that failed', () => {
    const recount = probeRecount(refusal(10_000, 10_050), 2000, { min: 30, max: 40 });
    expect(recount.to - recount.from).toBe(2000);
    const ceiling = (perSecond: number) =>
      recountedCeiling(recount, { count: 2 * perSecond, fromMs: recount.from }, 33);
    expect(ceiling(20)).toBe(30);
    expect(ceiling(50)).toBe(40);
    expect(ceiling(35)).toBeCloseTo(35, 9);
  });

  it('leaves the ceiling as it is when the count says the same', () => {
    const recount = probeRecount(refusal(10_000, 10_050), 2000, { min: 30, max: 40 });
    expect(recountedCeiling(recount, { count: 2 * 33, fromMs: recount.from }, 33)).toBeUndefined();
  });

  it('rates a count that could not reach back to the start over the span it covers', () => {
    const recount = probeRecount(refusal(10_000, 10_050), 2000, { min: 0, max: 100 });
    // The kept sends only reach back to 9500: 10 of them in 500 ms is 20/s, not 5/s.
    expect(recountedCeiling(recount, { count: 10, fromMs: 9500 }, 1)).toBeCloseTo(20, 9);
    expect(recountedCeiling(recount, { count: 10, fromMs: 10_000 }, 1)).toBeUndefined();
  });

  it('a count after a pause that could not reach back is still a grant per the pause, not the send rate', () => {
    // Paused 2 s, then 400 sends in the 400 ms before the refused one: the kept
    // sends reach back only 100 ms (100 of them), as dense as the rest.
    const window = { from: 9600, to: 10_000, spanMs: 2000 };
    const recount = grantRecount(refusal(10_000, 10_050, 2000), window, 1000);
    const counted = recountedCeiling(recount, { count: 100, fromMs: 9900 }, 600) as number;
    // 400 granted per 2 s is 200/s, below the deepest cut of the 1000/s that failed: held at that
    // cut, neither the count nor the send rate.
    expect(counted).toBeGreaterThan(200);
    expect(counted).toBeLessThan(1000);
    const dense = grantRecount(refusal(10_000, 10_050, 2000), window, 300);
    expect(recountedCeiling(dense, { count: 100, fromMs: 9900 }, 100)).toBeCloseTo(200, 9);
  });
});
