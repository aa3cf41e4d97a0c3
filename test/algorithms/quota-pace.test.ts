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

/**
 * Answers of a quota of 101 per `windowMs` (x-ratelimit, the reset in whole seconds) to one
 * request sent at `sentAt` with `inflight` of ours after it, `out` still out when it came back.
 */
function quotaAnswers(pace: QuotaPace, windowMs: number) {
  return (sentAt: number, at: number, remaining: number, inflight: number, out = 0) =>
    pace.onQuota(
      {
        limit: 101,
        remaining,
        resetMs: Math.ceil((windowMs - sentAt) / 1000) * 1000,
        source: 'x-ratelimit',
      },
      sample({ sentAt, at, inflight, outstanding: out }),
    );
}
describe('QuotaPace', () => {
  it('spreads remaining, less the requests still in flight, over the time to the reset', () => {
    const pace = new QuotaPace();
    expect(feed(pace, { remaining: 12, resetMs: 5000 }, 1000, 2)).toBe(0);
    // The header bounds the reset from above: 5 s from the answer's arrival at the latest.
    expect(pace.cap(1000)).toBeCloseTo(10 / 5, 9);
    expect(pace.cap(6001)).toBe(Infinity); // stale after the reset, with no policy known
  });

  it('caps at the policy, limit per window, also after the reset', () => {
    const pace = new QuotaPace();
    feed(pace, { limit: 600, windowMs: 60_000 }, 0);
    expect(pace.cap(0)).toBe(10);
    feed(pace, { limit: 600, windowMs: 60_000, remaining: 500, resetMs: 1000 }, 10);
    expect(pace.cap(10)).toBe(10);
    expect(pace.cap(120_000)).toBe(10);
  });

  it('pauses until the reset when nothing is left, or when the requests in flight take what is', () => {
    const pace = new QuotaPace();
    expect(feed(pace, { remaining: 0, resetMs: 2500 }, 100)).toBe(2600);
    // 3 left and 3 in flight: a request more would be refused, not sent unpaced.
    expect(feed(pace, { remaining: 3, resetMs: 2000 }, 700, 3)).toBe(2600);
  });

  it('subtracts only the requests sent after the freshest answer, not those it overtook', () => {
    // Sent at 0, 100 and 200 (1, 2, 3 in flight); the answer to 200 comes first, the others'
    // pages are slow. Its `remaining` counts all three: nothing in flight is still to count.
    const pace = new QuotaPace();
    const answer = (
      sentAt: number,
      at: number,
      remaining: number,
      inflight: number,
      outstanding: number,
    ) =>
      pace.onQuota(
        { remaining, resetMs: 10_000 - at, source: 'x-ratelimit' },
        sample({ sentAt, at, inflight, outstanding }),
      );
    answer(200, 1000, 7, 3, 2);
    expect(pace.cap(1000)).toBeCloseTo(7 / 9, 9); // (7 − 2) / 9 when all in flight counted
    answer(0, 1100, 9, 1, 1); // overtaken: older news, and the one it leaves in flight is counted
    expect(pace.cap(1100)).toBeCloseTo(7 / 8.9, 9);
  });

  it('reads what others take from the ordinals of ours, leaving out errors the limit did not see', () => {
    // One of ours every 200 ms, answered in 100 ms; every fifth answered by a bare 502 that
    // never reached the limit. remaining falls by 2 a counted answer: others take 5/s.
    const pace = new QuotaPace();
    let remaining = 150;
    for (let sentAt = 0, n = 0; sentAt <= 5000; sentAt += 200, n++) {
      const at = sentAt + 100;
      if (n % 5 === 4) {
        pace.onOutcome(sample({ sentAt, at, kind: 'server-error' }));
        remaining -= 1;
        continue;
      }
      remaining -= 2;
      const quota = { limit: 200, windowMs: 10_000, remaining, resetMs: 10_000 - sentAt };
      pace.onQuota({ ...quota, source: 'ietf' }, sample({ sentAt, at }));
    }
    // The latest answer, sent at 5,000, leaves 103; the header bounds the end at 10,100: others
    // take 5/s × 5.1 s of it by then (with the errors counted as ours: 4.2/s).
    expect(pace.cap(5100)).toBeCloseTo((103 - 5 * 5.1) / 5, 6);
  });

  it('paces to the reset learned from remaining going up, as a send time, not from the header', () => {
    // Pages take 1.5 s; the server counts a request as it comes in (at its send time here).
    const pace = new QuotaPace();
    const policy = { limit: 100, windowMs: 10_000 };
    const answer = (sentAt: number, remaining: number, resetMs: number) =>
      pace.onQuota(
        { ...policy, remaining, resetMs, source: 'ietf' },
        sample({ sentAt, at: sentAt + 1500 }),
      );
    answer(9_900, 1, 1000);
    answer(10_010, 99, 10_000); // the boundary was sent between 9,900 and 10,010
    answer(19_960, 0, 1000);
    answer(20_000, 99, 10_000); // ... and between 19,960 and 20,000: 10,000 a window on
    expect(pace.snapshot(SAME_CLOCKS).resetAt).toBe(20_000);
    // At 22,000 the header's bound is 32,000 (the answer's arrival + 10 s); the phase's 30,000.
    answer(20_500, 80, 10_000);
    expect(pace.cap(22_000)).toBeCloseTo(80 / 8, 9);
  });

  it('does not read an answer from a window already over as the state of this one', () => {
    const pace = new QuotaPace();
    const answer = (sentAt: number, at: number, remaining: number, resetMs: number) =>
      pace.onQuota(
        { limit: 100, windowMs: 10_000, remaining, resetMs, source: 'ietf' },
        sample({ sentAt, at }),
      );
    answer(9_800, 9_900, 1, 1000);
    answer(10_010, 10_100, 99, 10_000); // a boundary at 10,010 at the latest: the next at 20,010
    answer(15_000, 15_100, 50, 5000);
    // Sent at 19,900, answered after its window ended: nothing was left there, but the next
    // window has all of its quota — no pause, the policy's pace.
    expect(answer(19_900, 20_400, 0, 1000)).toBe(0);
    expect(pace.cap(20_400)).toBe(10);
  });

  it('sets aside what unseen others take of the window', () => {
    const pace = new QuotaPace();
    // One of ours every 200 ms, each answered in 100 ms; remaining falls by 2 an answer: others
    // take 5/s. The header bounds the window's end at 10,100.
    let remaining = 150;
    for (let sentAt = 0; sentAt <= 5000; sentAt += 200, remaining -= 2) {
      pace.onQuota(
        { limit: 200, windowMs: 10_000, remaining, resetMs: 10_000 - sentAt, source: 'ietf' },
        sample({ sentAt, at: sentAt + 100 }),
      );
    }
    // 100 left after the answer sent at 5,000; others will take 5/s × 5.1 s of it by the end.
    expect(pace.cap(5100)).toBeCloseTo((100 - 5 * 5.1) / 5, 6);
  });

  it('reads no others from a burst the server counted in another order than it was sent', () => {
    // A quota of 101 a minute. Four sent at once reach the server 4th, 1st, 3rd, 2nd (a few ms of
    // noise on the way); the 4th's answer comes first. Nobody else draws on the quota: the fall
    // from its 100 to the next send's 96 is all ours, not 3 others' in 1.7 s (103 by the reset).
    const pace = new QuotaPace();
    const answer = quotaAnswers(pace, 60_000);
    answer(0, 1491, 100, 4, 3);
    answer(0, 1498, 99, 1, 2);
    answer(0, 1599, 97, 3, 1);
    answer(0, 1678, 98, 2, 0);
    expect(answer(1700, 2700, 96, 1)).toBe(0); // main paused here to the reset, 58.8 s
    expect(pace.cap(2700)).toBeCloseTo(96 / ((61_491 - 2700) / 1000), 6);
  });

  it('reads no others from a burst stamped over a few ms, as a real client sends one', () => {
    // As above, the four stamped as they were admitted, over 9.6 ms (s3 #68 on loopback: 732.9,
    // 738.7, 741.6, 742.5 ms). On main only sends of one instant were compared: it paused here.
    const pace = new QuotaPace();
    const answer = quotaAnswers(pace, 60_000);
    answer(9.6, 1491, 100, 4, 3);
    answer(0, 1498, 99, 1, 2);
    answer(8.7, 1599, 97, 3, 1);
    answer(5.8, 1678, 98, 2, 0);
    expect(answer(1700, 2700, 96, 1)).toBe(0);
    expect(pace.cap(2700)).toBeCloseTo(96 / ((61_491 - 2700) / 1000), 6);
  });

  it('still reads others past what the reordering explains', () => {
    // A quota of 101 per 10 s; two sent at once reach the server in the other order, and others
    // take 2/s: the next send, 2 s on, finds 5 fewer than our one since the first answer explains.
    const pace = new QuotaPace();
    const answer = quotaAnswers(pace, 10_000);
    answer(0, 1000, 100, 2, 1);
    answer(0, 1010, 99, 1, 0);
    answer(2000, 2100, 94, 1);
    // One of the 5 is the burst's reordering: others took 4 in 2 s, 16.2 by the end (10,100).
    expect(pace.cap(2100)).toBeCloseTo((94 - (4 * 8100) / 2000) / 8, 6);
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
