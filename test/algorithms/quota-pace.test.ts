import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuotaPace } from '../../src/algorithms/quota-pace.js';
import type { RateLimitQuota } from '../../src/headers/quota.js';
import { SAME_CLOCKS, throughJson } from './clocks.js';
import { sample } from './samples.js';

/** Feeds one quota as of a response at `at` (sent 50 ms before), with `outstanding` in flight. */
function feed(pace: QuotaPace, quota: Omit<RateLimitQuota, 'source'>, at: number, outstanding = 0) {
  return pace.onQuota(
    { ...quota, source: 'x-ratelimit' },
    sample({ sentAt: at - 50, at, outstanding }),
  );
}

describe('QuotaPace', () => {
  it('spreads remaining, less the requests still in flight, over the time to the reset', () => {
    const pace = new QuotaPace();
    expect(feed(pace, { remaining: 12, resetMs: 5000 }, 1000, 2)).toBe(0);
    // Written halfway through the 50 ms round trip: (12 − 2) over the 4.975 s left.
    expect(pace.cap(1000)).toBeCloseTo(10 / 4.975, 9);
    expect(pace.cap(5976)).toBe(Infinity); // stale after the reset, with no policy known
  });

  it('caps at the policy, limit per window, also after the reset', () => {
    const pace = new QuotaPace();
    feed(pace, { limit: 600, windowMs: 60_000 }, 0);
    expect(pace.cap(0)).toBe(10);
    feed(pace, { limit: 600, windowMs: 60_000, remaining: 500, resetMs: 1000 }, 10);
    expect(pace.cap(10)).toBe(10);
    expect(pace.cap(120_000)).toBe(10);
  });

  it('pauses until the reset when nothing is left', () => {
    const pace = new QuotaPace();
    expect(feed(pace, { remaining: 0, resetMs: 2500 }, 100)).toBe(2575); // from 75, when written
  });

  it('counts a slow server’s reset from when it wrote the header, not from when the page came back', () => {
    // Sent at 0, answered at 2,000: the header said 10 s to the reset as of about 1,000.
    const pace = new QuotaPace();
    pace.onQuota(
      { remaining: 90, resetMs: 10_000, source: 'x-ratelimit' },
      sample({ sentAt: 0, at: 2000 }),
    );
    expect(pace.cap(2000)).toBeCloseTo(90 / 9, 9); // 90 over the 9 s left, not over 10 s
    expect(pace.cap(11_001)).toBe(Infinity); // reset at 11,000, not 12,000
  });

  it('learns the reset instant from remaining going up, not from answers overtaking each other', () => {
    const pace = new QuotaPace();
    const policy = { limit: 100, windowMs: 10_000 };
    feed(pace, { ...policy, remaining: 40, resetMs: 3000 }, 7500, 5);
    feed(pace, { ...policy, remaining: 43, resetMs: 3000 }, 7520, 5); // overtaken: within in flight
    expect(pace.snapshot(SAME_CLOCKS).resetAt).toBe(0);
    feed(pace, { ...policy, remaining: 1, resetMs: 1000 }, 9900);
    feed(pace, { ...policy, remaining: 99, resetMs: 10_000 }, 10_050); // sent at 10,000
    expect(pace.snapshot(SAME_CLOCKS).resetAt).toBe(10_025);
    // The header says 10 s (whole seconds); the learned phase says 9.475 s left at 10,550.
    feed(pace, { ...policy, remaining: 90, resetMs: 10_000 }, 10_550);
    expect(pace.cap(10_550)).toBeCloseTo(90 / 9.475, 6);
  });

  it('ignores a policy window under a millisecond (its reset phase would be NaN)', () => {
    const pace = new QuotaPace();
    feed(pace, { limit: 1, windowMs: 5e-324 }, 0);
    feed(pace, { remaining: 0 }, 0);
    feed(pace, { remaining: Number.MAX_VALUE }, 0);
    expect(pace.cap(0)).toBe(Infinity);
    expect(pace.snapshot(SAME_CLOCKS).windowMs).toBe(0);
  });

  it('never caps at zero, a negative number or NaN, and survives JSON (property)', () => {
    const field = fc.option(fc.double({ noNaN: false }), { nil: undefined });
    fc.assert(
      fc.property(
        field,
        field,
        field,
        field,
        fc.integer({ min: 0, max: 100 }),
        (limit, remaining, resetMs, windowMs, outstanding) => {
          const pace = new QuotaPace();
          const quota = { ...strip({ limit, remaining, resetMs, windowMs }) };
          const until = feed(pace, quota, 1000, outstanding);
          expect(Number.isNaN(until)).toBe(false);
          const cap = pace.cap(1000);
          expect(cap > 0).toBe(true);
          const copy = new QuotaPace();
          copy.restore(throughJson(pace.snapshot(SAME_CLOCKS)), SAME_CLOCKS);
          expect(copy.cap(1000)).toBe(cap);
        },
      ),
    );
  });
});

function strip(fields: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
}
