import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { LatestPause } from '../../src/algorithms/latest-pause.js';
import { sample } from './samples.js';

/** A refusal (`Retry-After: 0`) of a request sent at `sentAt`, back `rttMs` later. */
const refused = (sentAt: number, rttMs = 5) =>
  sample({ sentAt, at: sentAt + rttMs, kind: 'throttled', retryAfterMs: 0 });

// Under timing noise a refusal comes back a few ms after its send, so requests sent in those ms
// are in flight when the pause it brings is taken, and their refusals come back after it. Each
// was read as a new congestion event refused after that pause with nothing granted since: a cut
// to half the rate (family seed 1 #36, a 1 s window of 270 req/s answering `Retry-After: 0`, held
// 140 req/s for seconds at a time under 0-5 ms of noise each way).
describe('a refusal sent before a pause that answered a refusal of the rate', () => {
  it('is part of that congestion event when it comes back after the pause was taken', () => {
    const pauses = new LatestPause();
    expect(pauses.answeredByPause(refused(990, 20))).toBe(false); // no pause yet
    pauses.answered(1000);
    expect(pauses.answeredByPause(refused(990, 20))).toBe(true); // sent before, back after
    expect(pauses.answeredByPause(refused(990, 5))).toBe(false); // back before it: judged then
    expect(pauses.answeredByPause(refused(1000))).toBe(false); // sent after it: a new event
  });

  it('does not cut the rate to half after a resume found the server still closed', () => {
    const rate = new AdaptiveRate({ minPauseMs: 500 });
    for (let sent = 0; sent < 3000; sent += 10) {
      rate.onSample(sample({ sentAt: sent, at: sent + 100, inflight: 10 }));
    }
    rate.onSample(refused(3295)); // the held rate refused: a cut and a pause to 3800
    const held = rate.rate;
    const resumed = rate.pausedUntil;
    rate.onSample(refused(resumed)); // the first send after it: still closed, paused again, rate kept
    expect(rate.rate).toBe(held);
    const paused = rate.pausedUntil;
    // Sent 3 ms after the first, before its refusal came back and the pause was taken; back after.
    rate.onSample(refused(resumed + 3));
    expect(rate.rate).toBe(held); // on main 8c60e96: half of it
    expect(rate.pausedUntil).toBeGreaterThanOrEqual(paused);
  });
});
