import { describe, expect, it } from 'vitest';
import type { ConcurrencyLimit, RatePolicy, Sample } from '../../src/algorithms/sample.js';
import { ScopeFeedback } from '../../src/controller/scope-feedback.js';
import type { Signal } from '../../src/signal.js';

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
const bare503: Signal = { kind: 'overloaded', reason: '503', status: 503 };
const with429: Signal = { kind: 'throttled', reason: '429', status: 429 };
const ROUND_TRIP_MS = 130;

/** A scope held at `rate` requests/s (paced from 0, not probing) under a concurrency limit of `limit`. */
function pacedScope(limit: number, rate: number): ScopeFeedback {
  const limiter: ConcurrencyLimit = { limit, onSample: () => limit };
  const policy: RatePolicy = { rate, pausedUntil: 0, probing: false, onSample: () => {} };
  const feedback = new ScopeFeedback(limiter, policy, 60_000, false);
  feedback.notePaced(0);
  return feedback;
}

/** A scope held at 40 requests/s under a concurrency limit of 7. */
function heldScope(): ScopeFeedback {
  return pacedScope(7, 40);
}

/**
 * Feeds a request every 25 ms: successes sent at 6 in flight, and every
 * tenth a refusal `refusal` sent at 7; returns the refusals' samples.
 */
function refusedOneInTen(feedback: ScopeFeedback, refusal: Signal, n: number): Sample[] {
  const refused: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const sentAt = 1000 + 25 * i;
    const signal = i % 10 === 9 ? refusal : ok;
    const request = { sentAt, inflightAtSend: signal === ok ? 6 : 7 };
    const { sample } = feedback.judge(request, sentAt + ROUND_TRIP_MS, signal, 5);
    if (signal !== ok) refused.push(sample);
  }
  return refused;
}

/**
 * A slow scope held at 1.9 requests/s on 1.9 s pages: a success sent every
 * 2 s at `acceptedAt(i)` in flight, and between them a 429 sent at
 * `inflight` (itself included); returns the refusals' samples.
 */
function slowScopeRefusals(inflight: number, acceptedAt: (i: number) => number): Sample[] {
  const feedback = pacedScope(4, 1.9);
  const refused: Sample[] = [];
  for (let i = 0; i < 12; i++) {
    const sentAt = 1000 + 2000 * i;
    feedback.judge({ sentAt, inflightAtSend: acceptedAt(i) }, sentAt + 1900, ok, 0);
    const refusal = { sentAt: sentAt + 526, inflightAtSend: inflight };
    refused.push(feedback.judge(refusal, sentAt + 526, with429, 1).sample);
  }
  return refused;
}

describe('ScopeFeedback', () => {
  it('leaves one refusal at two in flight at a held rate to the rate, though one past every success', () => {
    // A cap of one is a rate of one request a round trip: one refusal cannot tell them apart.
    const [first] = slowScopeRefusals(2, () => 1);
    expect(first?.overConcurrency).not.toBe(true);
  });

  it('shows a cap of one by refusals at two in flight in three congestion events, none accepted at two', () => {
    const over = slowScopeRefusals(2, () => 1).map((sample) => sample.overConcurrency === true);
    expect(over.slice(0, 2)).toEqual([false, false]);
    expect(over.slice(2).every(Boolean)).toBe(true);
  });

  it('shows no cap of one where two in flight were accepted between the refusals: a rate limit', () => {
    const refused = slowScopeRefusals(2, (i) => (i % 2 === 0 ? 1 : 2));
    expect(refused.some((sample) => sample.overConcurrency === true)).toBe(false);
  });

  it('leaves refusals of a request sent alone to the rate, though timing noise would count it among two', () => {
    // Read as a cap's at a concurrency limit of one, they would cut nothing and the rate would hold
    // (a 17 req/s limit_req of the held-out field set was refused one request in six so).
    const feedback = pacedScope(1, 20);
    const refused: Sample[] = [];
    for (let i = 0; i < 12; i++) {
      const sentAt = 1000 + 500 * i;
      feedback.judge({ sentAt, inflightAtSend: 1 }, sentAt + 60, ok, 0);
      // Answered in half a page's time, as another request went out: under noise, counted at two.
      const refusal = { sentAt: sentAt + 200, inflightAtSend: 1 };
      refused.push(feedback.judge(refusal, sentAt + 230, with429, 1).sample);
    }
    expect(refused.some((sample) => sample.overConcurrency === true)).toBe(false);
  });

  it('still reads a refusal at three in flight, past successes at two, as refused for its concurrency', () => {
    const refused = slowScopeRefusals(3, () => 2);
    expect(refused.every((sample) => sample.overConcurrency === true)).toBe(true);
  });

  it("leaves the overload filter's trial of a bare 503 to the rate, though sent at one more in flight than the recent successes", () => {
    const refused = refusedOneInTen(heldScope(), bare503, 400);
    const tried = refused.filter((sample) => sample.signal.kind === 'throttled');
    expect(tried).toHaveLength(1); // the filter's one trial: does a slower rate stop them?
    expect(tried[0]?.overConcurrency).not.toBe(true);
  });

  it('still reads a 429 sent at more in flight than any recent success at a held rate as refused for its concurrency', () => {
    const refused = refusedOneInTen(heldScope(), with429, 100);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((sample) => sample.overConcurrency === true)).toBe(true);
  });
});
