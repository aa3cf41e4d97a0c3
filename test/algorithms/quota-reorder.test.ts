import { describe, expect, it } from 'vitest';
import { QuotaReorder } from '../../src/algorithms/quota-reorder.js';

const at = (sentAt: number, remaining: number, inflight = 1) => ({ sentAt, inflight, remaining });

describe('QuotaReorder', () => {
  it('assumes no reordering until the server counts two sent at one instant in the other order', () => {
    const reorder = new QuotaReorder();
    const first = at(0, 50, 2);
    reorder.start(first);
    reorder.read(at(0, 49, 3), [first]); // sent after it at the same instant, counted after it
    expect(reorder.neighbours(0)).toBe(0);
    reorder.read(at(0, 48, 1), [first]); // sent before it, counted after it
    expect(reorder.neighbours(0)).toBe(2); // the three sent at 0, beside the one asked about
  });

  it('counts the window’s sends at the same instant, and a new window’s only', () => {
    const reorder = new QuotaReorder();
    const first = at(100, 90, 2);
    reorder.start(first);
    reorder.read(at(100, 89, 1), [first]);
    reorder.read(at(300, 80), [first]);
    expect(reorder.neighbours(100)).toBe(1);
    expect(reorder.neighbours(300)).toBe(0);
    reorder.start(at(10_000, 99)); // a new window keeps what was seen, not the sends
    expect(reorder.neighbours(100)).toBe(0);
  });

  it('does not read more left after a later send as a reordering (a refill between them)', () => {
    const reorder = new QuotaReorder();
    const first = at(0, 1);
    reorder.start(first);
    reorder.read(at(4, 8), [first]);
    reorder.read(at(4, 7, 2), [first]);
    expect(reorder.neighbours(4)).toBe(0);
  });
});
