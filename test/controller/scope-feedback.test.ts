import { describe, expect, it } from 'vitest';
import type { ConcurrencyLimit, RatePolicy, Sample } from '../../src/algorithms/sample.js';
import { ScopeFeedback } from '../../src/controller/scope-feedback.js';
import type { Signal } from '../../src/signal.js';

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
const bare503: Signal = { kind: 'overloaded', reason: '503', status: 503 };
const with429: Signal = { kind: 'throttled', reason: '429', status: 429 };
const ROUND_TRIP_MS = 130;

/** A scope held at 40 requests/s (paced from 0, not probing) under a concurrency limit of 7. */
function heldScope(): ScopeFeedback {
  const limit: ConcurrencyLimit = { limit: 7, onSample: () => 7 };
  const rate: RatePolicy = { rate: 40, pausedUntil: 0, probing: false, onSample: () => {} };
  const feedback = new ScopeFeedback(limit, rate, 60_000, false);
  feedback.notePaced(0);
  return feedback;
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

describe('ScopeFeedback', () => {
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
