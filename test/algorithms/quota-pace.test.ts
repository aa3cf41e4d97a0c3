import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quotaPace } from '../../src/algorithms/quota-pace.js';

describe('quotaPace', () => {
  it('spreads the remaining quota over the time to the reset, with a margin', () => {
    const pace = quotaPace({ remaining: 10, resetMs: 5000, source: 'x-ratelimit' }, 1000, 0.05);
    expect(pace).toEqual({ cap: 1.9, pauseUntil: 0, expiresAt: 6000 });
  });

  it('caps at the policy, limit per window', () => {
    const policy = { limit: 600, windowMs: 60_000, source: 'ietf' } as const;
    expect(quotaPace(policy, 0, 0.05)).toEqual({ cap: 10, pauseUntil: 0, expiresAt: 60_000 });
    const plenty = quotaPace({ ...policy, remaining: 500, resetMs: 1000 }, 0, 0.05);
    expect(plenty?.cap).toBe(10);
  });

  it('pauses until the reset when nothing is left', () => {
    const pace = quotaPace({ remaining: 0, resetMs: 2500, source: 'x-ratelimit' }, 100, 0.05);
    expect(pace).toEqual({ cap: Infinity, pauseUntil: 2600, expiresAt: 2600 });
  });

  it('says nothing without a time to the reset, and ignores broken fields', () => {
    expect(quotaPace({ remaining: 3, source: 'x-ratelimit' }, 0, 0.05)).toBeUndefined();
    const broken = {
      limit: -1,
      remaining: Number.NaN,
      resetMs: 1000,
      windowMs: 0,
      source: 'ietf',
    } as const;
    expect(quotaPace(broken, 0, 0.05)).toEqual({ cap: Infinity, pauseUntil: 0, expiresAt: 1000 });
  });

  it('never caps at zero, a negative number or NaN (property)', () => {
    const field = fc.option(fc.double({ noNaN: false }), { nil: undefined });
    fc.assert(
      fc.property(
        field,
        field,
        field,
        field,
        fc.double({ min: 0, max: 0.5, noNaN: true }), // margin is validated as an option
        (limit, remaining, resetMs, windowMs, margin) => {
          const quota = {
            source: 'ietf' as const,
            ...strip({ limit, remaining, resetMs, windowMs }),
          };
          const pace = quotaPace(quota, 0, margin);
          if (pace === undefined) return;
          expect(pace.cap > 0).toBe(true);
          expect(Number.isNaN(pace.pauseUntil)).toBe(false);
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
