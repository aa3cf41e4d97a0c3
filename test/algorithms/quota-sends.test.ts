import { describe, expect, it } from 'vitest';
import { QuotaSends } from '../../src/algorithms/quota-sends.js';

describe('QuotaSends', () => {
  it('counts as sent after an answer only the requests it has not counted, however they overtook', () => {
    // Sent at 0, 100 and 200 (1, 2 and 3 in flight just after); 200's answer arrives first.
    const sends = new QuotaSends();
    sends.onOutcome(1000);
    sends.countFrom(200, 3);
    // Two still in flight, both sent before it: none after (not two, as "all in flight" had it).
    expect(sends.since(2)).toBe(0);
    sends.onOutcome(1100); // the one sent at 0 comes in: one in flight
    expect(sends.since(1)).toBe(0);
    // One more sent at 1200: two in flight, one of them after the answer counted from.
    expect(sends.since(2)).toBe(1);
    sends.onOutcome(1300); // the one sent at 100
    expect(sends.since(1)).toBe(1);
  });

  it('numbers the sends counted from, in order, whatever the order of their answers', () => {
    const sends = new QuotaSends();
    // Sent at 0, 100, 200; the answer to 100 comes first, then 200, then 0.
    sends.onOutcome(500);
    sends.countFrom(100, 2);
    const second = sends.ordinal as number;
    sends.onOutcome(600);
    sends.countFrom(200, 3);
    expect(sends.ordinal).toBe(second + 1);
    // Sent at 700 with one still in flight (the one sent at 0), answered at 800 before it.
    sends.onOutcome(800);
    sends.countFrom(700, 2);
    expect(sends.ordinal).toBe(second + 2);
  });

  it('falls back to all in flight when it cannot tell: counting back from an earlier send', () => {
    const sends = new QuotaSends();
    sends.onOutcome(1000);
    sends.countFrom(900, 1);
    sends.onOutcome(1100);
    sends.countFrom(500, 4); // earlier than the send counted from: the outcomes between are gone
    expect(sends.since(3)).toBe(3);
    expect(sends.ordinal).toBeUndefined();
  });
});
