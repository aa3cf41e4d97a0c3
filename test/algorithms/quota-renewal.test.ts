import { describe, expect, it } from 'vitest';
import { QuotaRenewal } from '../../src/algorithms/quota-renewal.js';

let next = 0;

/** Reads `count` one-second windows of a quota of `limit`, each seen to grant `granted`. */
function windows(renewal: QuotaRenewal, count: number, granted: number, limit = 10): void {
  for (let i = 0; i < count; i++, next += 1000)
    renewal.onWindow({ since: next, until: next + 900, granted }, limit, 1);
}

describe('QuotaRenewal', () => {
  it('reads a quota that grants its limit per window, or less, as announced', () => {
    // A fixed window spent to the last, a sliding log paced at its limit (ours plus what is left
    // is the limit), one shared with an unseen consumer.
    const renewal = new QuotaRenewal();
    windows(renewal, 10, 10);
    windows(renewal, 10, 6);
    expect(renewal.faster).toBe(false);
    expect(renewal.periodMs(10)).toBe(Infinity);
  });

  it('reads one that grants well over its limit in three windows as renewing faster', () => {
    const renewal = new QuotaRenewal();
    windows(renewal, 2, 20);
    expect(renewal.faster).toBe(false);
    windows(renewal, 3, 19);
    expect(renewal.faster).toBe(true);
    // 10 renewed over 900 ms at the fastest: the limit in 900 ms.
    expect(renewal.periodMs(10)).toBeCloseTo(900);
  });

  it('reads windows over the limit now and then, not in a row, as boundaries missed', () => {
    const renewal = new QuotaRenewal();
    for (let i = 0; i < 5; i++) {
      windows(renewal, 2, 20);
      windows(renewal, 1, 9);
    }
    expect(renewal.faster).toBe(false);
  });

  it('does not count the same window twice, nor read a quota of one or two', () => {
    const renewal = new QuotaRenewal();
    for (let i = 0; i < 5; i++) renewal.onWindow({ since: 0, until: 900, granted: 20 + i }, 10, 1);
    windows(renewal, 5, 6, 2);
    expect(renewal.faster).toBe(false);
  });

  it('shortens the period while its sends find room left, lengthens it when one is refused', () => {
    const renewal = new QuotaRenewal();
    windows(renewal, 3, 19);
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
