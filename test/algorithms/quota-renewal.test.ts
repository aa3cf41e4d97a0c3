import { describe, expect, it } from 'vitest';
import { QuotaRenewal } from '../../src/algorithms/quota-renewal.js';

let next = 0;

/**
 * Reads `count` one-second windows of a quota of `limit`, in each `ours` of our requests, the
 * latest leaving `left`, the least any answer showed `least`.
 */
function windows(
  renewal: QuotaRenewal,
  count: number,
  { ours, left, least }: { ours: number; left: number; least: number },
  limit = 10,
): void {
  for (let i = 0; i < count; i++, next += 1000)
    renewal.onWindow({ since: next, until: next + 900, ours, left, least }, limit, 1);
}

/** Ten sent a window of ten, the quota full again before each: renewed every send. */
const renewing = { ours: 10, left: 9, least: 8 };

describe('QuotaRenewal', () => {
  it('reads a quota that grants its limit per window, or less, as announced', () => {
    // A fixed window spent to the last, a sliding log paced at its limit, one shared.
    const renewal = new QuotaRenewal();
    windows(renewal, 10, { ours: 10, left: 0, least: 0 });
    windows(renewal, 10, { ours: 4, left: 2, least: 2 });
    expect(renewal.faster).toBe(false);
    expect(renewal.periodMs(10)).toBe(Infinity);
  });

  it('reads one that grants well over its limit in three windows in a row as renewing faster', () => {
    const renewal = new QuotaRenewal();
    windows(renewal, 2, renewing);
    expect(renewal.faster).toBe(false);
    windows(renewal, 1, renewing);
    expect(renewal.faster).toBe(true);
    // 9 renewed over 900 ms: the limit in 1000 ms.
    expect(renewal.periodMs(10)).toBeCloseTo(1000);
  });

  it('reads a window straddling a renewal it did not see as honest', () => {
    // A bucket never drained refilled inside the window: up to twice the limit, but low on one side.
    const renewal = new QuotaRenewal();
    windows(renewal, 5, { ours: 12, left: 8, least: 3 });
    expect(renewal.faster).toBe(false);
  });

  it('reads windows over the limit now and then, not in a row, as boundaries missed', () => {
    const renewal = new QuotaRenewal();
    for (let i = 0; i < 5; i++) {
      windows(renewal, 2, renewing);
      windows(renewal, 1, { ours: 9, left: 0, least: 0 });
    }
    expect(renewal.faster).toBe(false);
  });

  it('does not count the same window twice, nor read a quota of one or two', () => {
    const renewal = new QuotaRenewal();
    for (let i = 0; i < 5; i++)
      renewal.onWindow({ since: 0, until: 900, ours: 10 + i, left: 9, least: 8 }, 10, 1);
    windows(renewal, 5, { ours: 5, left: 1, least: 1 }, 2);
    expect(renewal.faster).toBe(false);
  });

  it('shortens the period while its sends find room left, lengthens it when one is refused', () => {
    const renewal = new QuotaRenewal();
    windows(renewal, 3, renewing);
    const first = renewal.periodMs(10);
    for (let t = 0; t <= first; t += 100) renewal.onAnswer(t, 5, false);
    const shorter = renewal.periodMs(10);
    expect(shorter).toBeLessThan(first);
    const from = first + 100;
    renewal.onAnswer(from, 0, true);
    renewal.onAnswer(from + shorter, 3, false);
    expect(renewal.periodMs(10)).toBeGreaterThan(shorter);
  });
});
