import { describe, expect, it } from 'vitest';
import { QuotaReorder } from '../../src/algorithms/quota-reorder.js';

/** An answer sent at `sentAt`, `inflight` of ours out after it, come back a second later. */
const at = (sentAt: number, remaining: number, inflight = 1, came = sentAt + 1000) => ({
  sentAt,
  inflight,
  at: came,
  remaining,
});

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

  it('reads a burst a real client stamped over a few ms as one (its sends admitted one by one)', () => {
    // 102 a minute (a unit renews in 588 ms). Four of a slow start's opening went out over 9.5 ms
    // (s3 #68 crawled on loopback); the server counted the 4th first. On main only sends of one
    // instant were compared: nothing was seen, and the 3 counted after it were read as others'.
    const reorder = new QuotaReorder();
    reorder.unitMs = 60_000 / 102;
    const first = at(742.5, 100, 4);
    reorder.start(first);
    reorder.read(at(732.9, 99, 1), [first]);
    reorder.read(at(741.6, 97, 3), [first]);
    reorder.read(at(738.7, 98, 2), [first]);
    expect(reorder.neighbours(742.5)).toBe(3);
    expect(reorder.neighbours(732.9)).toBe(3);
  });

  it('joins sends each within 50 ms of the one before, not those paced further apart', () => {
    // The same four over 22.8 ms, in two pairs (a client admitting on a loaded loopback).
    const reorder = new QuotaReorder();
    reorder.unitMs = 1000;
    const first = at(27, 50, 3);
    reorder.start(first);
    reorder.read(at(0, 49, 1), [first]);
    reorder.read(at(4, 48, 2), [first]);
    reorder.read(at(28, 47, 4), [first]);
    reorder.read(at(90, 46, 5), [first]);
    expect(reorder.neighbours(0)).toBe(3);
    expect(reorder.neighbours(90)).toBe(0);
  });

  it('does not join sends with an answer read between them: the later one followed it', () => {
    const reorder = new QuotaReorder();
    reorder.unitMs = 1000;
    const first = at(20, 48, 2, 1000);
    reorder.start(first);
    reorder.read(at(0, 50, 1, 10), [first]); // answered at 10, before the sends at 20
    reorder.read(at(20, 49, 3, 1010), [first]); // sent at 20 after the first, counted before it
    expect(reorder.neighbours(20)).toBe(1);
    expect(reorder.neighbours(0)).toBe(0);
  });

  it('does not join sends half a unit apart or more: a refill may come between them', () => {
    // 100 per second: a unit renews every 10 ms, and sends 6 ms apart may straddle a renewal
    // of two (more left after the later one). Sends 4 ms apart cannot: it is a reordering.
    const reorder = new QuotaReorder();
    reorder.unitMs = 10;
    const first = at(0, 5);
    reorder.start(first);
    reorder.read(at(6, 6), [first]);
    expect(reorder.neighbours(0)).toBe(0);
    reorder.start(at(100, 5));
    reorder.read(at(104, 6), [at(100, 5)]);
    expect(reorder.neighbours(100)).toBe(1);
  });
});
