import { describe, expect, it } from 'vitest';
import { LatestPause } from '../../src/algorithms/latest-pause.js';
import { billedPauseMs, RefusalPause } from '../../src/algorithms/refusal-pause.js';
import { sample } from './samples.js';

const PACE = { minPauseMs: 0, rate: 10 };

/** A 429 sent at `sentAt`, answered 50 ms later, with `retryAfterMs` if given. */
const refusal = (sentAt: number, retryAfterMs?: number) =>
  sample({
    sentAt,
    at: sentAt + 50,
    kind: 'throttled',
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

/** Asks `pauses` for the pause `s` brings and records it, as the adaptive rate does. */
function pauseFor(
  pauses: RefusalPause,
  latest: LatestPause,
  s: ReturnType<typeof refusal>,
  closed = false,
) {
  const ms = pauses.forSample(s, closed, latest, PACE);
  if (ms > 0) latest.record(s.at, ms, closed);
  return ms;
}

describe('RefusalPause', () => {
  it('pauses a second for a refusal that names none, doubling while refusals follow right after each pause, up to 32 s', () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const seen: number[] = [];
    let sentAt = 0;
    for (let i = 0; i < 8; i++) {
      seen.push(pauseFor(pauses, latest, refusal(sentAt)));
      sentAt = latest.end + 100; // refused again 100 ms after the pause
    }
    expect(seen).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 32_000, 32_000]);
    // A refusal long after the last pause is a new event: a second again.
    expect(pauseFor(pauses, latest, refusal(latest.end + 60_000))).toBe(1000);
  });

  /** The grants of a server that accepted the sends at `times` (as the meter counts them). */
  const grants = (times: number[]) => ({
    acceptedSentIn: (from: number, to: number) => ({
      count: times.filter((t) => t >= from && t <= to).length,
      fromMs: Math.max(from, Math.min(...times)),
    }),
  });
  /** Sends every 1000 / `rate` ms over [`from`, `to`). */
  const every = (rate: number, from: number, to: number) =>
    Array.from(
      { length: Math.round(((to - from) * rate) / 1000) },
      (_, i) => from + (i * 1000) / rate,
    );

  it('keeps a second for a refusal soon after a pause the server reopened from (it granted half of what the rate sent since), doubling after one it did not', () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const held = every(10, -1000, 0); // PACE's 10 req/s, granted
    expect(pauseFor(pauses, latest, refusal(0))).toBe(1000);
    // refused 900 ms after each pause: 9 of 9 sends granted, then 1 of 9
    const resumed = every(10, latest.end, latest.end + 900);
    const reopened = { ...PACE, granted: grants([...held, ...resumed]) };
    const overshoot = refusal(latest.end + 900);
    expect(pauses.forSample(overshoot, false, latest, reopened)).toBe(1000);
    latest.record(overshoot.at, 1000);
    const closedAgain = { ...PACE, granted: grants([...held, ...resumed, latest.end]) };
    expect(pauses.forSample(refusal(latest.end + 900), false, latest, closedAgain)).toBe(2000);
  });

  it('doubles the pause for a refusal soon after one the server reopened from when the rate is under half of what it granted in the second before that pause (a window still full)', () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const climb = every(40, -1000, 0); // a probe's climb, granted at 40 req/s, then refused
    expect(pauseFor(pauses, latest, refusal(0))).toBe(1000);
    const resumed = every(10, latest.end, latest.end + 900); // cut to 10 req/s: 9 of 9 granted
    const context = { ...PACE, granted: grants([...climb, ...resumed]) };
    expect(pauses.forSample(refusal(latest.end + 900), false, latest, context)).toBe(2000);
    // At 20 req/s, half of the 40 granted before, the same grants show a reopened server.
    const atHalf = { ...context, rate: 20 };
    const again = new RefusalPause();
    expect(again.forSample(refusal(latest.end + 900), false, latest, atHalf)).toBe(1000);
  });

  it('pauses half a second for a new refusal naming none once the pauses since the last new one ended with the server open, a second after one that did not', () => {
    // At 100 req/s the half second saved is 50 sends; a limit refilling as it goes, or a 1 s
    // window refused near its end, reopens well within it.
    const fast = { minPauseMs: 0, rate: 100 };
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const at = (s: ReturnType<typeof refusal>, closed = false) => {
      const ms = pauses.forSample(s, closed, latest, fast);
      latest.record(s.at, ms, closed);
      return ms;
    };
    const later = () => refusal(latest.end + 10_000);
    expect(at(refusal(0))).toBe(1000); // the scope's first: a second
    expect(at(later())).toBe(500); // that pause ended open
    expect(at(refusal(latest.end), true)).toBe(1000); // found closed as sending resumed
    expect(at(later())).toBe(1000); // so the next new refusal's pause is a second
    expect(at(later())).toBe(500); // and after that one ended open, half
    expect(at(refusal(latest.end + 500))).toBe(1000); // refused right after: doubled
    expect(at(later())).toBe(1000); // so a second again
    // A slow scope keeps the second: at 10 req/s the half second holds 5 sends.
    const slow = new RefusalPause();
    const slowLatest = new LatestPause();
    for (const sentAt of [0, 20_000, 40_000]) {
      const ms = slow.forSample(refusal(sentAt), false, slowLatest, PACE);
      slowLatest.record(sentAt + 50, ms);
      expect(ms).toBe(1000);
    }
  });

  it('brings no second pause for a refusal of the same burst (sent before the last pause ended)', () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    expect(pauseFor(pauses, latest, refusal(0))).toBe(1000);
    expect(pauses.forSample(refusal(500), false, latest, PACE)).toBe(0);
  });

  it("takes the server's Retry-After, at least minPauseMs, but no floor for a concurrency refusal", () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const floor = { minPauseMs: 500, rate: 10 };
    expect(pauses.forSample(refusal(0, 3000), false, latest, floor)).toBe(3000);
    expect(pauses.forSample(refusal(0, 100), false, latest, floor)).toBe(500);
    const overConcurrency = { ...refusal(0), overConcurrency: true };
    expect(pauses.forSample(overConcurrency, false, latest, floor)).toBe(0); // a free slot is what it lacked
    const asked = { ...refusal(0, 100), overConcurrency: true };
    expect(pauses.forSample(asked, false, latest, floor)).toBe(100);
    expect(pauses.forSample(sample({ at: 50, kind: 'server-error' }), false, latest, floor)).toBe(
      0,
    );
  });

  it('waits out a server still closed in pauses that grow with the time closed, never more than doubling the last', () => {
    const pauses = new RefusalPause();
    const latest = new LatestPause();
    const fast = { minPauseMs: 0, rate: 1000 }; // 100 requests take 0.1 s: the time closed decides
    const first = refusal(0);
    latest.record(first.at, pauses.forSample(first, false, latest, fast)); // 1 s, closed since 50
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      const onResume = refusal(latest.end);
      const ms = pauses.forSample(onResume, true, latest, fast);
      const closedMs = onResume.at - first.at;
      expect(ms).toBeLessThanOrEqual(Math.max(1000, 2 * latest.lengthMs));
      expect(ms).toBeLessThanOrEqual(Math.max(1000, closedMs / 4));
      seen.push(ms);
      latest.record(onResume.at, ms, true);
    }
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] as number);
    expect(seen.at(-1)).toBeGreaterThan(1000); // it grew
    // A slow scope keeps a pause no shorter than 100 requests take at its rate; a longer Retry-After wins.
    const slow = { minPauseMs: 0, rate: 1 };
    expect(pauses.forSample(refusal(latest.end), true, latest, slow)).toBe(
      Math.min(32_000, 2 * latest.lengthMs),
    );
    expect(pauses.forSample(refusal(latest.end, 60_000), true, latest, fast)).toBe(60_000);
  });

  it('bills a pause it chose itself no more than half its first, one the server asked for in full', () => {
    expect(billedPauseMs(7000, true)).toBe(500);
    expect(billedPauseMs(1000, true)).toBe(500);
    expect(billedPauseMs(300, true)).toBe(300);
    expect(billedPauseMs(4000, false)).toBe(4000);
  });
});
