import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import type { RateLimitQuota } from '../../src/headers/quota.js';
import type { SignalKind } from '../../src/signal.js';
import { sample } from './samples.js';

/** Feeds accepted outcomes of requests sent at `perSecond` over [from, to), answered after `rttMs`. */
function stream(rate: AdaptiveRate, perSecond: number, from: number, to: number, rttMs = 350) {
  for (let sent = from; sent < to; sent += 1000 / perSecond) {
    rate.onSample(sample({ sentAt: sent, at: sent + rttMs, inflight: 11 }));
  }
}

/** Sends at whatever the rate is (re-read after each outcome) over [from, to), answered after `rttMs`. */
function follow(rate: AdaptiveRate, from: number, to: number, rttMs = 350) {
  for (let sent = from; sent < to; sent += 1000 / Math.min(rate.rate, 1000)) {
    rate.onSample(sample({ sentAt: sent, at: sent + rttMs, inflight: 11 }));
  }
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

  it('learns 30 req/s from what was accepted before a burst of 429s and paces below it', () => {
    const rate = learned30();
    expect(rate.ceiling).toBeGreaterThan(28.5);
    expect(rate.ceiling).toBeLessThan(31.5);
    // A new ceiling gets a double margin: 0.95² of it.
    expect(rate.rate).toBeCloseTo((rate.ceiling ?? 0) * 0.9025, 5);
    expect(rate.pausedUntil).toBe(3350 + 9 + 1000);
  });

  it('cuts once per congestion event: the rest of the burst changes nothing', () => {
    const rate = new AdaptiveRate();
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350, 1);
    const after = rate.toJSON();
    burst(rate, 3349, 3351, 25); // sent before the decrease: same event
    expect(rate.ceiling).toBe(after.ceiling);
    expect(rate.rate).toBeCloseTo(after.curveStart, 9);
  });

  it('keeps cutting while throttling persists at the paced rate', () => {
    const rate = learned30();
    const first = rate.rate;
    // 340 ms after the pause the server refuses again (the ~9 requests it took in between are
    // still on their way back): it grants far less than the paced rate, so the cut goes as deep
    // as it may, to half of the rate that failed (then the new-ceiling margin).
    burst(rate, 4700, 4701);
    expect(rate.rate).toBeLessThan(first * 0.5);
    expect(rate.rate).toBeGreaterThan(first * 0.4);
  });

  it('measures what the server granted after a pause up to the refused request, not its answer', () => {
    const rate = learned30();
    const paced = rate.rate;
    // The pause ends at 4359; the request sent 800 ms later is refused, and the
    // refusal takes 100 ms: the server granted 800 ms of the pace per 1 s pause.
    burst(rate, 4359 + 800, 4359 + 900, 1);
    // (The curve climbs a little meanwhile, hence the tolerance; counting to the
    // refusal's arrival would read 0.9.)
    expect(rate.ceiling).toBeGreaterThan(paced * 0.78);
    expect(rate.ceiling).toBeLessThan(paced * 0.82);
  });

  it('recounts what the server granted after a pause by send time once those outcomes are in', () => {
    const rate = learned30();
    const paced = rate.rate;
    // Sending resumes 30 ms after the pause (4359) and runs slower than the pace: 20 requests
    // 40 ms apart are accepted, then the next is refused with another 1 s pause.
    for (let k = 0; k < 20; k++) {
      const sentAt = 4389 + 40 * k;
      rate.onSample(sample({ sentAt, at: sentAt + 350, inflight: 11 }));
    }
    burst(rate, 4389 + 800, 4389 + 801, 1);
    const estimated = rate.ceiling as number;
    rate.onSample(sample({ sentAt: 5850, at: 6200, inflight: 11 })); // the outcomes are in
    expect(paced).toBeGreaterThan(25); // the pacer offered more than it sent
    expect(estimated).toBeGreaterThan(20.5);
    // 20 granted per pause (1009 ms: the first burst's refusals arrived over 9 ms).
    expect(rate.ceiling).toBeCloseTo(20_000 / 1009, 6);
  });

  it('returns to the ceiling along a plateau, then probes above it only slowly', () => {
    const rate = learned30();
    const ceiling = rate.ceiling ?? 0;
    // The curve's clock runs from the end of the pause (4359); outcomes land 350 ms after sending.
    const plateauEnd = 4360 + 25_000 - 350; // the default shortest plateau is 25 s
    follow(rate, 4360, plateauEnd); // the last lands at the end of the plateau
    expect(rate.rate).toBeGreaterThan(ceiling * 0.999);
    expect(rate.rate).toBeLessThan(ceiling * 1.001);
    follow(rate, plateauEnd, plateauEnd + 2000);
    expect(rate.rate).toBeLessThan(ceiling * 1.07); // two seconds past the plateau: +6.4 %
    follow(rate, plateauEnd + 2000, plateauEnd + 5000);
    expect(rate.rate).toBeGreaterThan(ceiling * 1.5); // five: the old ceiling is evidently stale
  });

  it('spreads a published remaining quota over the time to its reset (remaining 10, reset 5 s)', () => {
    const rate = new AdaptiveRate();
    const quota: RateLimitQuota = { remaining: 10, resetMs: 5000, source: 'x-ratelimit' };
    rate.onSample(sample({ at: 1000, quota }));
    expect(rate.rate).toBeLessThanOrEqual(2);
    expect(rate.rate).toBeGreaterThan(1.8);
    // The information expires when the window resets.
    rate.onSample(sample({ at: 6001 }));
    expect(rate.rate).toBe(Infinity);
  });

  it('caps at a published policy and pauses until the reset when the quota is spent', () => {
    const rate = new AdaptiveRate();
    const policy = { limit: 600, windowMs: 60_000, source: 'ietf' } as const;
    rate.onSample(sample({ at: 100, quota: { ...policy, remaining: 300, resetMs: 1000 } }));
    expect(rate.rate).toBe(10);
    rate.onSample(sample({ at: 200, quota: { ...policy, remaining: 0, resetMs: 20_000 } }));
    expect(rate.pausedUntil).toBe(20_200);
  });

  it('pauses on Retry-After, at least minPauseMs for Retry-After: 0', () => {
    const rate = new AdaptiveRate({ minPauseMs: 400 });
    rate.onSample(sample({ at: 1000, kind: 'throttled', retryAfterMs: 2500 }));
    expect(rate.pausedUntil).toBe(3500);
    rate.onSample(sample({ at: 4000 }));
    expect(rate.pausedUntil).toBe(0);
    rate.onSample(sample({ at: 5000, kind: 'overloaded', retryAfterMs: 0 }));
    expect(rate.pausedUntil).toBe(5400);
    rate.onSample(sample({ at: 6000, retryAfterMs: 9000 })); // a success carrying one: no pause
    expect(rate.pausedUntil).toBe(0);
  });

  it('never exceeds a documented rate, even when it learns a higher ceiling', () => {
    const rate = new AdaptiveRate({ documentedRate: 1, startRate: 5 });
    expect(rate.rate).toBe(1);
    stream(rate, 30, 0, 3000);
    burst(rate, 3349, 3350);
    expect(rate.rate).toBeLessThanOrEqual(1);
  });

  it('starts at startRate and probes upward from it', () => {
    const rate = new AdaptiveRate({ startRate: 5 });
    expect(rate.rate).toBe(5);
    follow(rate, 0, 5350);
    expect(rate.rate).toBeGreaterThan(9);
    // A rate nobody uses is not probing anything: it stops climbing.
    stream(rate, 2, 5350, 15_000);
    expect(rate.rate).toBeLessThan(20);
  });

  it('cuts deeper on overload and holds the rate for overloadHoldMs', () => {
    const rate = new AdaptiveRate({ overloadHoldMs: 3000 });
    stream(rate, 30, 0, 3000);
    rate.onSample(sample({ sentAt: 3349, at: 3350, kind: 'overloaded' }));
    const held = rate.rate;
    expect(held).toBeCloseTo((rate.ceiling ?? 0) * 0.7 * 0.95, 5);
    stream(rate, held, 3400, 6000); // outcomes up to 6350: within the hold
    expect(rate.rate).toBeCloseTo(held, 9);
    stream(rate, held, 6000, 9000);
    expect(rate.rate).toBeGreaterThan(held);
  });

  it('serialises to numbers that survive JSON and resumes where it left off', () => {
    const first = learned30();
    stream(first, 25, 4360, 6000);
    const saved = JSON.parse(JSON.stringify(first.toJSON())) as Record<string, unknown>;
    for (const value of Object.values(saved)) expect(Number.isFinite(value)).toBe(true);
    const second = new AdaptiveRate({}, saved);
    expect(second.rate).toBe(first.rate);
    expect(second.ceiling).toBe(first.ceiling);
    stream(first, 25, 6000, 8000);
    stream(second, 25, 6000, 8000);
    expect(second.toJSON()).toEqual(first.toJSON());
  });

  it('keeps constant-size state whatever the traffic (one of 100,000 scopes)', () => {
    const rate = new AdaptiveRate();
    stream(rate, 30, 0, 300);
    const small = Object.keys(rate.toJSON());
    stream(rate, 30, 300, 3_300_000); // 100,000 samples
    burst(rate, 3_300_000, 3_300_001);
    expect(Object.keys(rate.toJSON())).toEqual(small);
    expect(JSON.stringify(rate.toJSON()).length).toBeLessThan(700);
  });

  it('rejects bad options and malformed state, naming the field', () => {
    expect(() => new AdaptiveRate({ backoffRatio: 0 })).toThrow(
      /`backoffRatio` must be a number >= 0.01/,
    );
    expect(() => new AdaptiveRate({ documentedRate: -1 })).toThrow(/documentedRate.*-1/);
    expect(() => new AdaptiveRate({ minProbeIntervalMs: 5000, maxProbeIntervalMs: 1000 })).toThrow(
      /maxProbeIntervalMs.*>= minProbeIntervalMs/,
    );
    expect(() => new AdaptiveRate({ rate: 3 } as never)).toThrow(/unknown option `rate`/);
    expect(() => new AdaptiveRate({}, { ceiling: 'high' })).toThrow(
      /AdaptiveRate state.*`ceiling`/,
    );
    expect(() => new AdaptiveRate({}, { acceptedSum: -2 })).toThrow(/acceptedSum.*-2/);
    expect(() => new AdaptiveRate({}, { curveCeiling: 3, curveStart: 0 })).toThrow(/curveStart/);
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
    expect(rate.rate).toBeCloseTo(Math.min(first, 20) / 2, 0);
    rate.onAlarm(10_000, 'futile');
    expect(rate.rate).toBe(Infinity);
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

  it('cleared keeps the lower rate as the ceiling to probe up from', () => {
    const rate = new AdaptiveRate();
    for (let at = 0; at < 10_000; at += 50) okAt(rate, at);
    rate.onAlarm(10_000, 'slow-down');
    const cut = rate.rate;
    rate.onAlarm(12_000, 'cleared');
    expect(rate.rate).toBeCloseTo(cut, 5);
    expect(rate.ceiling).toBeCloseTo(cut, 5);
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
