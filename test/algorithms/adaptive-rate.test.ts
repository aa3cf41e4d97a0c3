import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import type { RateLimitQuota } from '../../src/headers/quota.js';
import type { SignalKind } from '../../src/signal.js';
import { SAME_CLOCKS, throughJson } from './clocks.js';
import { sample } from './samples.js';

/** Feeds accepted outcomes of requests sent at `perSecond` over [from, to), answered after `rttMs`. */
function stream(rate: AdaptiveRate, perSecond: number, from: number, to: number, rttMs = 350) {
  for (let sent = from; sent < to; sent += 1000 / perSecond) {
    rate.onSample(sample({ sentAt: sent, at: sent + rttMs, inflight: 11 }));
  }
}

/**
 * Sends at whatever the rate is (re-read after each outcome) over [from, to)
 * against a server that grants `capacity` requests/s: each request sent
 * faster than that is refused (Retry-After `retryAfterMs`, or none), and
 * sending waits out any pause. Returns the refusals.
 */
function serve(
  rate: AdaptiveRate,
  from: number,
  to: number,
  capacity: number,
  retryAfterMs?: number,
): number {
  let refused = 0;
  let credit = 1;
  let last = from;
  for (let sent = from; sent < to; ) {
    credit = Math.min(1, credit + ((sent - last) * capacity) / 1000);
    last = sent;
    const ok = credit >= 1;
    if (ok) credit -= 1;
    else refused++;
    const spec: Parameters<typeof sample>[0] = { sentAt: sent, at: sent + (ok ? 100 : 1) };
    if (!ok) {
      spec.kind = 'throttled';
      if (retryAfterMs !== undefined) spec.retryAfterMs = retryAfterMs;
    }
    rate.onSample(sample(spec));
    sent = Math.max(sent + 1000 / Math.min(rate.rate, 10_000), rate.pausedUntil);
  }
  return refused;
}

/** A burst of `count` 429s (Retry-After 1 s) for requests sent at `sentAt`, arriving from `at`. */
function burst(rate: AdaptiveRate, sentAt: number, at: number, count = 10) {
  for (let i = 0; i < count; i++) {
    rate.onSample(sample({ sentAt, at: at + i, kind: 'throttled', retryAfterMs: 1000 }));
  }
}

/** An AdaptiveRate that learned a 30 req/s server: accepted stream, then a burst of 429s at 3.35 s. */
function learned30(): AdaptiveRate {
  const rate = new AdaptiveRate();
  stream(rate, 30, 0, 3000);
  burst(rate, 3349, 3350);
  return rate;
}

describe('AdaptiveRate', () => {
  it('starts unpaced, with no pause and no ceiling', () => {
    const rate = new AdaptiveRate();
    expect(rate.rate).toBe(Infinity);
    expect(rate.pausedUntil).toBe(0);
    expect(rate.ceiling).toBeUndefined();
    stream(rate, 50, 0, 2000);
    expect(rate.rate).toBe(Infinity);
  });

  it('learns 30 req/s from what was accepted before a burst of 429s and holds a margin below it', () => {
    const rate = learned30();
    expect(rate.ceiling).toBeGreaterThan(28.5);
    expect(rate.ceiling).toBeLessThan(31.5);
    expect(rate.rate).toBeLessThan(rate.ceiling as number);
    expect(rate.rate).toBeGreaterThan((rate.ceiling as number) * 0.95);
    expect(rate.probing).toBe(false);
    expect(rate.pausedUntil).toBe(3350 + 9 + 1000);
  });

  it('reacts once per congestion event: the rest of the burst changes nothing', () => {
    const rate = new AdaptiveRate();
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350, 1);
    const after = rate.snapshot(SAME_CLOCKS);
    burst(rate, 3349, 3351, 25); // sent before the decrease: same event
    expect(rate.ceiling).toBe(after.ceiling);
    expect(rate.snapshot(SAME_CLOCKS).margin).toBe(after.margin);
  });

  it('a refusal at the held rate lowers the ceiling by at most 30 % and widens the margin', () => {
    const rate = new AdaptiveRate({ minHoldMs: 60_000 }); // no probe in between
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    const { margin } = rate.snapshot(SAME_CLOCKS);
    const held = rate.rate;
    stream(rate, held, 4400, 9000);
    rate.onSample(sample({ sentAt: 9000, at: 9001, kind: 'throttled', retryAfterMs: 1000 }));
    expect(rate.ceiling).toBeGreaterThanOrEqual(held * 0.7 - 1e-9);
    expect(rate.ceiling).toBeLessThanOrEqual(held + 1e-9);
    expect(rate.snapshot(SAME_CLOCKS).margin).toBeGreaterThan(margin);
  });

  it('waits for the budget to earn a probe: a first ceiling counted in full costs as much as one', () => {
    // The first recount (4.35 s) is paid like a refused probe: a refusal and its
    // 1 s pause, earned back at 1 % of the requests and 5 % of the time (~20 s).
    const rate = learned30();
    stream(rate, 28, 4400, 20_000);
    expect(rate.probing).toBe(false);
    stream(rate, 28, 20_000, 32_000);
    expect(rate.probing).toBe(true);
  });

  it('a probe refused with no pause named brings none; a refusal among the next three sends is its aftermath', () => {
    /** A scope that learned 30 req/s and is probing at 8.5 s (a cheap budget). */
    const probing = () => {
      const rate = new AdaptiveRate({ refusedShare: 0.5, pausedShare: 0.5 });
      stream(rate, 30, 0, 3000);
      burst(rate, 3349, 3350);
      stream(rate, 28, 4400, 8500);
      expect(rate.probing).toBe(true);
      return rate;
    };
    for (const retryAfterMs of [0, undefined]) {
      const rate = probing();
      const refusal = {
        kind: 'throttled' as const,
        ...(retryAfterMs === 0 ? { retryAfterMs } : {}),
      };
      rate.onSample(sample({ ...refusal, sentAt: 8500, at: 8501 }));
      expect(rate.probing).toBe(false);
      expect(rate.pausedUntil).toBeLessThanOrEqual(8501); // no pause: the cut is the answer
      const { ceiling } = rate;
      // The next send is refused too (a window the probe spent): the probe's, not the rate's.
      const next = 8501 + 1000 / rate.rate;
      rate.onSample(sample({ ...refusal, sentAt: next, at: next + 1 }));
      expect(rate.ceiling).toBe(ceiling);
      expect(rate.pausedUntil).toBeGreaterThanOrEqual(next + 1 + 500);
    }
    // A refusal later than three sends after it is the rate held: cut.
    const rate = probing();
    rate.onSample(sample({ kind: 'throttled', sentAt: 8500, at: 8501 }));
    const { ceiling } = rate;
    const later = 8501 + 4000 / rate.rate;
    stream(rate, rate.rate, 8502, later - 1, 1);
    rate.onSample(sample({ kind: 'throttled', sentAt: later, at: later + 1 }));
    expect(rate.ceiling).toBeLessThan(ceiling as number);
  });

  it("bills a probe settled by the next cut its own refusal, not also the cut's", () => {
    // A probe refused with no pause named, then the rate held before it refused 2 s later: that
    // refusal begins a new event (no higher than the rate held before the probe, it is no
    // aftermath), and settles there the probe's bill, which the budget had not settled yet.
    const rate = learned30();
    stream(rate, 28, 4400, 32_000);
    expect(rate.probing).toBe(true);
    const probeAt = 32_000;
    rate.onSample(sample({ kind: 'throttled', sentAt: probeAt, at: probeAt + 1 }));
    expect(rate.probing).toBe(false);
    stream(rate, 20, probeAt + 100, probeAt + 2000, 1);
    const credit = () => rate.snapshot(SAME_CLOCKS).budget?.refusalCredit as number;
    const before = credit();
    rate.onSample(sample({ kind: 'throttled', sentAt: probeAt + 2000, at: probeAt + 2001 }));
    expect(before - credit()).toBeCloseTo(1, 1); // the probe's one refusal (2 when it was billed the cut's too)
  });

  it('probes above the ceiling when the budget allows, the excess doubling each probeDoublingMs', () => {
    const rate = new AdaptiveRate({ refusedShare: 0.5, pausedShare: 0.5 }); // a cheap budget
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    const ceiling = rate.ceiling as number;
    stream(rate, 28, 4400, 5000);
    expect(rate.probing).toBe(false);
    let at = 5000; // the probe's start, read where it comes
    for (; !rate.probing && at < 8500; at += 100) stream(rate, 28, at, at + 100);
    expect(rate.probing).toBe(true);
    const start = rate.rate;
    expect(start).toBeGreaterThan(ceiling);
    stream(rate, start, at, at + 2000);
    expect(rate.rate).toBeGreaterThan(ceiling + (start - ceiling) * 3);
  });

  it('a refused probe keeps the ceiling it started from; a capacity that rose is followed up', () => {
    const rate = learned30();
    const ceiling = rate.ceiling as number;
    serve(rate, 4400, 60_000, 30, 1000);
    expect(rate.ceiling).toBeGreaterThanOrEqual(ceiling * 0.9);
    expect(rate.ceiling).toBeLessThan(31.5);
    serve(rate, 60_000, 120_000, 90, 1000); // capacity triples
    expect(rate.ceiling).toBeGreaterThan(75);
  });

  it('holds a probe step below a refused probe until its recount is in, however short the pause', () => {
    const rate = new AdaptiveRate({ refusedShare: 0.5, pausedShare: 0.5 }); // a cheap budget
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    stream(rate, 28, 4400, 5000);
    expect(rate.probing).toBe(false);
    const held = rate.rate;
    stream(rate, 28, 5000, 8500);
    stream(rate, rate.rate, 8500, 10_500);
    const refused = rate.rate;
    expect(refused).toBeGreaterThan(held * 1.3);
    rate.onSample(sample({ sentAt: 10_499, at: 10_500, kind: 'throttled', retryAfterMs: 200 }));
    const resumeAt = rate.pausedUntil;
    expect(resumeAt - 10_500).toBeLessThan(1000); // sooner than a recount can count
    expect(rate.rate).toBeLessThanOrEqual(refused / 1.05); // probeStep 5 %
    stream(rate, held, resumeAt, 13_000); // the recount: what the probe's span really got
    expect(rate.ceiling).toBeGreaterThan(held);
  });

  it("a refusal in a refused probe's aftermath asking for the same 2 s pause returns to the rate the probe's refusal held", () => {
    const rate = new AdaptiveRate({ refusedShare: 0.5, pausedShare: 0.5 }); // a cheap budget
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    stream(rate, 28, 4400, 5000);
    const held = rate.rate;
    stream(rate, 28, 5000, 8500);
    stream(rate, rate.rate, 8500, 10_500); // the probe, every send accepted
    const refusal = { kind: 'throttled', retryAfterMs: 2000 } as const;
    rate.onSample(sample({ sentAt: 10_499, at: 10_500, ...refusal }));
    const read = rate.rate; // held at the probe's refusal, until its recount
    const resumeAt = rate.pausedUntil;
    stream(rate, rate.rate, resumeAt, resumeAt + 500);
    const current = rate.rate;
    expect(current).toBeGreaterThan(held * 1.1); // the probe's reading was above the rate held before
    expect(current).toBeGreaterThan(read); // its recount read more than its refusal
    expect(read).toBeGreaterThan((held + current) / 2); // main halved the gap: 34.2 req/s
    // Refused half a second after a 2 s pause: what was granted since, per the pause, is a quarter of the rate.
    rate.onSample(sample({ sentAt: resumeAt + 500, at: resumeAt + 501, ...refusal }));
    expect(rate.ceiling).toBeCloseTo(read, 6);
  });

  it('spends about refusedShare of the requests on probes once settled', () => {
    const rate = learned30();
    serve(rate, 4400, 30_000, 30); // settle, no Retry-After: pauses of its own
    const requests = 30 * 300;
    const refused = serve(rate, 30_000, 330_000, 30);
    expect(refused / requests).toBeLessThan(0.02);
    expect(refused).toBeGreaterThan(0); // it did probe
  });

  it('probes less often when each refusal brings a long pause (a costlier probe)', () => {
    const cheap = learned30();
    const dear = learned30();
    const cheapRefusals = serve(cheap, 4400, 304_400, 30, 0);
    const dearRefusals = serve(dear, 4400, 304_400, 30, 5000);
    expect(dearRefusals).toBeLessThan(cheapRefusals);
  });

  it('pauses a refusal without Retry-After, longer while refused right after each pause', () => {
    const rate = new AdaptiveRate();
    stream(rate, 30, 0, 3000);
    const pauseAfter = (sentAt: number) => {
      rate.onSample(sample({ sentAt, at: sentAt + 1, kind: 'throttled' }));
      return rate.pausedUntil - (sentAt + 1);
    };
    const first = pauseAfter(3300);
    expect(first).toBeGreaterThanOrEqual(500); // long enough for a per-second limit to forget
    const again = pauseAfter(3301 + first + 1); // refused right after the pause
    expect(again).toBeGreaterThan(first);
    let longest = again;
    for (let i = 0; i < 20; i++) longest = pauseAfter(rate.pausedUntil + 1);
    expect(longest).toBeLessThanOrEqual(60_000); // it grows, but not without bound
    expect(pauseAfter(rate.pausedUntil + 60_000)).toBe(first); // long after: back to the first
  });

  it('refused as sending resumes: the server is still closed — pauses that grow with the time closed, the rate kept', () => {
    // A long window spent: the server answers Retry-After: 0 until it ends.
    const rate = new AdaptiveRate({ minPauseMs: 500 });
    stream(rate, 100, 0, 3000);
    const closedAt = 3301;
    rate.onSample(sample({ sentAt: 3300, at: closedAt, kind: 'throttled', retryAfterMs: 0 }));
    const held = rate.rate;
    expect(rate.pausedUntil).toBe(3801);
    let pausedUntil = rate.pausedUntil;
    let last = 500;
    while (pausedUntil - closedAt < 120_000) {
      // The first request sent after the pause is refused at once.
      rate.onSample(
        sample({ sentAt: pausedUntil, at: pausedUntil + 1, kind: 'throttled', retryAfterMs: 0 }),
      );
      const pause = rate.pausedUntil - (pausedUntil + 1);
      const closedMs = pausedUntil + 1 - closedAt;
      expect(pause).toBeGreaterThanOrEqual(last); // never shorter
      expect(pause).toBeLessThanOrEqual(Math.max(2 * last, 1000)); // at most doubling
      // at most a quarter of the time closed, or a second, or 100 sends at the held rate
      expect(pause).toBeLessThanOrEqual(Math.max(1000, 0.25 * closedMs, 100_000 / held) + 1e-9);
      expect(rate.rate).toBe(held);
      last = pause;
      pausedUntil = rate.pausedUntil;
    }
    expect(last).toBeGreaterThan(20_000); // two minutes closed: pauses of 30 s, not a hot loop
  });

  it("a refusal of a later send after the pause is the rate's, even when it overtakes the first send's success", () => {
    const rate = new AdaptiveRate();
    stream(rate, 10, 0, 5000);
    rate.onSample(sample({ sentAt: 5300, at: 5301, kind: 'throttled', retryAfterMs: 1000 }));
    const held = rate.rate;
    const resumed = rate.pausedUntil;
    // Sent a pacing interval after the first send of the resumption, refused before its success is in.
    rate.onSample(
      sample({
        sentAt: resumed + 1000 / held,
        at: resumed + 1000 / held + 1,
        kind: 'throttled',
        retryAfterMs: 1000,
      }),
    );
    expect(rate.rate).toBeLessThan(held);
    expect(rate.pausedUntil).toBe(resumed + 1000 / held + 1 + 1000); // the server's word, not doubled
  });

  it('pauses on Retry-After, at least minPauseMs for Retry-After: 0', () => {
    const rate = new AdaptiveRate({ minPauseMs: 400 });
    rate.onSample(sample({ at: 1000, kind: 'throttled', retryAfterMs: 2500 }));
    expect(rate.pausedUntil).toBe(3500);
    rate.onSample(sample({ at: 4000 }));
    expect(rate.pausedUntil).toBe(0);
    // Not a probe's refusal (the first ceiling's check is probing by now: a free probe brings none).
    const fresh = new AdaptiveRate({ minPauseMs: 400 });
    fresh.onSample(sample({ at: 5000, kind: 'overloaded', retryAfterMs: 0 }));
    expect(fresh.pausedUntil).toBe(5400);
    fresh.onSample(sample({ at: 6000, retryAfterMs: 9000 })); // a success carrying one: no pause
    expect(fresh.pausedUntil).toBe(0);
  });

  it('leaves a refusal for concurrency to the concurrency limit (only its pause applies)', () => {
    const rate = new AdaptiveRate();
    stream(rate, 30, 0, 3000);
    const refusal = sample({
      sentAt: 3300,
      at: 3301,
      kind: 'throttled',
      retryAfterMs: 1000,
      overConcurrency: true,
    });
    rate.onSample(refusal);
    expect(rate.rate).toBe(Infinity);
    expect(rate.pausedUntil).toBe(4301);
  });

  it('gives a refusal for concurrency that asks for no pause none (a free slot is what it lacked)', () => {
    const rate = new AdaptiveRate({ minPauseMs: 500 });
    stream(rate, 30, 0, 3000);
    const refused = { at: 3301, kind: 'throttled', retryAfterMs: 0 } as const;
    rate.onSample(sample({ ...refused, sentAt: 3300, overConcurrency: true }));
    expect(rate.pausedUntil).toBe(0);
    rate.onSample(sample({ ...refused, sentAt: 3300 })); // for the rate: minPauseMs
    expect(rate.pausedUntil).toBe(3801);
  });

  it('never exceeds a documented rate, even when it learns a higher ceiling', () => {
    const rate = new AdaptiveRate({ documentedRate: 1, startRate: 5 });
    expect(rate.rate).toBe(1);
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    expect(rate.rate).toBeLessThanOrEqual(1);
  });

  it('starts at startRate and probes upward from it, not past what is used', () => {
    const rate = new AdaptiveRate({ startRate: 5 });
    expect(rate.rate).toBeGreaterThanOrEqual(5);
    serve(rate, 0, 5000, 1000);
    expect(rate.rate).toBeGreaterThan(9);
    // A rate nobody uses is not probing anything: it stops climbing.
    stream(rate, 2, 5000, 15_000);
    expect(rate.rate).toBeLessThan(60);
  });

  it('cuts deeper on overload and does not probe before overloadHoldMs', () => {
    // A cheap budget, so that the hold is what keeps it from probing.
    const rate = new AdaptiveRate({ overloadHoldMs: 8000, refusedShare: 0.5, pausedShare: 0.5 });
    stream(rate, 30, 0, 3000);
    rate.onSample(sample({ sentAt: 3349, at: 3350, kind: 'overloaded' }));
    expect(rate.ceiling).toBeLessThan(30 * 0.75);
    const held = rate.rate;
    stream(rate, held, 4400, 11_000); // outcomes up to 11,350: within the hold
    expect(rate.probing).toBe(false);
    stream(rate, held, 11_000, 14_000);
    expect(rate.probing).toBe(true);
  });

  it('a refusal while a published quota sets the pace belongs to the quota: a pause to the reset, no ceiling', () => {
    // 100 per 10 s window, shared with someone else who spends it faster than the pace foresaw.
    const rate = new AdaptiveRate();
    let remaining = 100;
    for (let at = 100; at < 5000; at += 100) {
      remaining -= 2; // one of ours, one of theirs
      rate.onSample(
        sample({
          at,
          quota: { limit: 100, windowMs: 10_000, remaining, resetMs: 10_000 - at, source: 'ietf' },
        }),
      );
    }
    const quota = {
      limit: 100,
      windowMs: 10_000,
      remaining: 0,
      resetMs: 5000,
      source: 'ietf',
    } as const;
    rate.onSample(sample({ at: 5000, kind: 'throttled', retryAfterMs: 0, quota }));
    expect(rate.ceiling).toBeUndefined(); // nothing learned about the server's rate
    // The header bounds the reset: 5 s from the answer's arrival at the latest.
    expect(rate.pausedUntil).toBe(10_000);
    rate.onSample(
      sample({
        at: 10_100,
        quota: { limit: 100, windowMs: 10_000, remaining: 99, resetMs: 9900, source: 'ietf' },
      }),
    );
    expect(rate.rate).toBeGreaterThan(9); // the new window's pace, about 10/s
  });

  it('a published quota refused in a second window hands the pace to the learned rate, unless the refusal says nothing of it', () => {
    // `limit: 10` a second, published; the server refuses again in the next window (a bucket
    // publishing its size as the limit). A bare 5xx taken for a refusal, without the quota's
    // headers, is left to the quota however often it comes.
    const run = (withQuota: boolean) => {
      const rate = new AdaptiveRate();
      for (let window = 0; window < 3; window++) {
        const from = window * 1000;
        for (let i = 1; i <= 5; i++) {
          const at = from + i * 100;
          const quota = {
            limit: 10,
            windowMs: 1000,
            remaining: 10 - i * 2,
            resetMs: 1000 - i * 100,
            source: 'x-ratelimit',
          } as const;
          rate.onSample(sample({ sentAt: at - 50, at, quota }));
        }
        const quota = {
          limit: 10,
          windowMs: 1000,
          remaining: 0,
          resetMs: 300,
          source: 'x-ratelimit',
        } as const;
        const at = from + 700;
        rate.onSample(
          sample({
            sentAt: at - 50,
            at,
            kind: 'throttled',
            retryAfterMs: 0,
            ...(withQuota ? { quota } : {}),
          }),
        );
      }
      return rate.ceiling;
    };
    expect(run(true)).toBeDefined();
    expect(run(false)).toBeUndefined();
  });

  it('serialises to numbers that survive JSON and resumes where it left off', () => {
    const first = learned30();
    stream(first, 25, 4360, 6000);
    const saved = throughJson(first.snapshot(SAME_CLOCKS));
    const numbers = (value: unknown): boolean =>
      typeof value === 'object' && value !== null
        ? Object.values(value).every(numbers)
        : typeof value === 'boolean' || Number.isFinite(value);
    expect(numbers(saved)).toBe(true);
    const second = new AdaptiveRate();
    second.restore(saved, SAME_CLOCKS);
    expect(second.rate).toBe(first.rate);
    expect(second.ceiling).toBe(first.ceiling);
    stream(first, 25, 6000, 8000);
    stream(second, 25, 6000, 8000);
    expect(second.rate).toBeCloseTo(first.rate, 9);
    expect(second.ceiling).toBe(first.ceiling);
  });

  it('keeps constant-size state whatever the traffic (one of 100,000 scopes)', () => {
    const rate = learned30();
    stream(rate, 30, 4400, 5000);
    const small = JSON.stringify(rate.snapshot(SAME_CLOCKS)).length;
    stream(rate, 30, 5000, 3_305_000); // 100,000 samples
    burst(rate, 3_305_000, 3_305_001);
    expect(JSON.stringify(rate.snapshot(SAME_CLOCKS)).length).toBeLessThan(small + 100);
    expect(JSON.stringify(rate.snapshot(SAME_CLOCKS)).length).toBeLessThan(1000);
  });

  it('rejects bad options and malformed state, naming the field', () => {
    expect(() => new AdaptiveRate({ margin: 0 })).toThrow(/`margin` must be a number >= 0.01/);
    expect(() => new AdaptiveRate({ refusedShare: 0.9 })).toThrow(/refusedShare.*0.9/);
    expect(() => new AdaptiveRate({ documentedRate: -1 })).toThrow(/documentedRate.*-1/);
    expect(() => new AdaptiveRate({ rate: 3 } as never)).toThrow(/unknown option `rate`/);
    const restore = (state: Record<string, unknown>) => () =>
      new AdaptiveRate().restore(state, SAME_CLOCKS);
    expect(restore({ ceiling: 'high' })).toThrow(/AdaptiveRate state.*`ceiling`/);
    expect(restore({ acceptedSum: -2 })).toThrow(/acceptedSum.*-2/);
    expect(restore({ budget: 3 })).toThrow(/budget/);
    expect(restore({ quota: 'spent' })).toThrow(/`quota` must be an object/);
  });

  it('keeps the rate positive or Infinity, never NaN, never above a documented cap (property)', () => {
    const kinds: SignalKind[] = ['ok', 'throttled', 'overloaded', 'blocked', 'timeout', 'refused'];
    const weird = fc.oneof(
      fc.double({ noNaN: false }),
      fc.constantFrom(0, -1, Infinity, Number.MAX_VALUE),
    );
    const quota = fc.record(
      { limit: weird, remaining: weird, resetMs: weird, windowMs: weird },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: 0.001, max: 1000, noNaN: true }), { nil: undefined }),
        fc.array(
          fc.record({
            kind: fc.constantFrom(...kinds),
            dt: fc.double({ min: 0, max: 5000, noNaN: true }),
            rtt: fc.double({ min: -10, max: 3000, noNaN: true }),
            retryAfterMs: fc.option(weird, { nil: undefined }),
            quota: fc.option(quota, { nil: undefined, freq: 4 }),
            outstanding: fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined }),
          }),
          { maxLength: 300 },
        ),
        (documentedRate, steps) => {
          const rate = new AdaptiveRate(documentedRate === undefined ? {} : { documentedRate });
          let at = 0;
          for (const step of steps) {
            at += step.dt;
            const spec: Parameters<typeof sample>[0] = {
              at,
              sentAt: at - step.rtt,
              kind: step.kind,
            };
            if (step.retryAfterMs !== undefined) spec.retryAfterMs = step.retryAfterMs;
            if (step.quota !== undefined) spec.quota = { ...step.quota, source: 'ietf' };
            if (step.outstanding !== undefined) spec.outstanding = step.outstanding;
            rate.onSample(sample(spec));
            const r = rate.rate;
            expect(r === Infinity || (Number.isFinite(r) && r > 0)).toBe(true);
            if (documentedRate !== undefined) expect(r).toBeLessThanOrEqual(documentedRate);
            expect(Number.isNaN(rate.pausedUntil)).toBe(false);
            expect(rate.pausedUntil).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('AdaptiveRate and a published quota', () => {
  it('spreads remaining, less what is still in flight, over the time to its reset', () => {
    const rate = new AdaptiveRate();
    const quota: RateLimitQuota = { remaining: 12, resetMs: 5000, source: 'x-ratelimit' };
    rate.onSample(sample({ at: 1000, quota, outstanding: 2 }));
    // (12 − 2) over the 5 s left at the latest: the header's reset counted from the arrival.
    expect(rate.rate).toBeCloseTo(10 / 5, 9);
  });

  it('caps at a published policy, also past the reset, and pauses until the reset when spent', () => {
    const rate = new AdaptiveRate();
    const policy = { limit: 600, windowMs: 60_000, source: 'ietf' } as const;
    rate.onSample(sample({ at: 100, quota: { ...policy, remaining: 300, resetMs: 1000 } }));
    expect(rate.rate).toBe(10);
    rate.onSample(sample({ at: 200, quota: { ...policy, remaining: 0, resetMs: 20_000 } }));
    expect(rate.pausedUntil).toBe(20_200); // 20 s from the answer's arrival at the latest
    rate.onSample(sample({ at: 30_000 })); // the window reset: the policy still stands
    expect(rate.rate).toBe(10);
  });

  it('learns when the window resets from remaining going up, and paces to that instant', () => {
    const rate = new AdaptiveRate();
    const policy = { limit: 100, windowMs: 10_000, source: 'ietf' } as const;
    // The header says whole seconds (9 s left), the reset was seen at 10,000: 9.5 s left at 10,500.
    rate.onSample(
      sample({ sentAt: 9900, at: 9950, quota: { ...policy, remaining: 1, resetMs: 1000 } }),
    );
    rate.onSample(
      sample({ sentAt: 10_000, at: 10_000, quota: { ...policy, remaining: 99, resetMs: 10_000 } }),
    );
    rate.onSample(
      sample({ sentAt: 10_450, at: 10_500, quota: { ...policy, remaining: 95, resetMs: 10_000 } }),
    );
    expect(rate.rate).toBeCloseTo(95 / 9.5, 1);
  });
});

describe('AdaptiveRate latency alarms', () => {
  const okAt = (rate: AdaptiveRate, at: number) =>
    rate.onSample({ sentAt: at - 100, at, inflight: 1, signal: { kind: 'ok', reason: '200' } });

  it('slow-down cuts to a quarter of what is served, then halves; futile restores the rate before the alarm', () => {
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at); // about 20 req/s accepted, unpaced
    expect(rate.rate).toBe(Infinity);
    rate.onAlarm(10_000, 'slow-down');
    expect(rate.rate).toBeGreaterThan(4);
    expect(rate.rate).toBeLessThan(6);
    const first = rate.rate;
    rate.onAlarm(10_000, 'slow-down');
    expect(rate.rate).toBeLessThan(first);
    rate.onAlarm(10_000, 'futile');
    expect(rate.rate).toBe(Infinity);
  });

  it('after a futile alarm the next experiment is smaller: half of what is served, not a quarter', () => {
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at); // about 20 req/s accepted, unpaced
    rate.onAlarm(10_000, 'slow-down');
    rate.onAlarm(12_500, 'futile');
    for (let at = 12_500; at < 80_000; at += 50) okAt(rate, at);
    rate.onAlarm(80_000, 'slow-down');
    expect(rate.rate).toBeGreaterThan(8);
    expect(rate.rate).toBeLessThan(12);
    rate.onAlarm(82_500, 'cleared'); // it helped: the next alarm is decisive again
    for (let at = 82_500; at < 150_000; at += 50) okAt(rate, at);
    rate.onAlarm(150_000, 'slow-down');
    expect(rate.rate).toBeLessThan(6);
  });

  it('a 429 during an alarm outranks it: futile does not restore the rate the server refused', () => {
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at);
    rate.onAlarm(10_000, 'slow-down');
    rate.onSample({
      sentAt: 10_400,
      at: 10_401,
      inflight: 2,
      signal: { kind: 'throttled', reason: '429' },
    });
    const afterRefusal = rate.rate;
    rate.onAlarm(15_000, 'futile');
    expect(rate.rate).toBeLessThanOrEqual(afterRefusal);
  });

  it('cleared restores a little under what was served when the alarm fired, held before probing', () => {
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at); // about 20 req/s accepted, unpaced
    rate.onAlarm(10_000, 'slow-down');
    expect(rate.rate).toBeLessThan(6);
    rate.onAlarm(12_000, 'cleared'); // slowing down helped: a queue drains under what it served
    expect(rate.rate).toBeGreaterThan(16);
    expect(rate.rate).toBeLessThan(20);
  });

  it('an alarm while a restored ceiling is held refutes it: later cleared alarms keep the lower rate', () => {
    // A tarpit delays what is over its free rate but serves it all: what it served was too much.
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at);
    rate.onAlarm(10_000, 'slow-down');
    rate.onAlarm(12_000, 'cleared');
    for (let at = 12_000; at < 15_000; at += 50) okAt(rate, at);
    rate.onAlarm(15_000, 'slow-down'); // before the restore's hold ended, no probe yet
    const ceiling = rate.ceiling;
    rate.onAlarm(17_000, 'cleared');
    expect(rate.ceiling).toBe(ceiling);
    expect(rate.rate).toBeLessThan(6);
  });

  it('an alarm in a restored hold where the server served well under it does not refute it: a queue', () => {
    // A queue serves its own rate whatever is sent: the restore, read from a first alarm that a
    // burst inflated, overshot it. The next cleared alarm restores from what it serves now.
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at); // 20 req/s accepted
    rate.onAlarm(10_000, 'slow-down');
    rate.onAlarm(12_000, 'cleared'); // restores 18
    for (let at = 12_000; at < 15_000; at += 1000 / 12) okAt(rate, at); // served: 12 req/s
    rate.onAlarm(15_000, 'slow-down'); // in the restore's hold
    rate.onAlarm(17_000, 'cleared');
    expect(rate.rate).toBeGreaterThan(9);
    expect(rate.rate).toBeLessThan(12);
  });
});

describe('AdaptiveRate first ceiling', () => {
  it('recounts the first ceiling once the requests accepted just before the first 429 have come back', () => {
    const rate = new AdaptiveRate();
    const ok = (sentAt: number) =>
      rate.onSample({
        sentAt,
        at: sentAt + 350,
        inflight: 10,
        signal: { kind: 'ok', reason: '200' },
      });
    // Slow start against "30 in any second": 4, 8, 16 requests a round trip apart, then 6 more
    // accepted at 1050 and the rest refused at once — before the 16 and the 6 are back.
    for (let i = 0; i < 4; i++) ok(0);
    for (let i = 0; i < 8; i++) ok(350);
    rate.onSample({
      sentAt: 1050,
      at: 1051,
      inflight: 30,
      signal: { kind: 'throttled', reason: '429', retryAfterMs: 1000 },
    });
    const first = rate.ceiling as number;
    for (let i = 0; i < 16; i++) ok(700);
    for (let i = 0; i < 6; i++) ok(1050);
    ok(2100); // after the pause: the window's requests are all in
    expect(first).toBeLessThan(20);
    expect(rate.ceiling).toBeCloseTo(30, 5);
  });
});
