import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { seededRandom } from '../../src/random.js';
import {
  fixedWindow,
  type LoopResult,
  runClosedLoop,
  slidingWindow,
  type ToyServer,
  tokenBucket,
} from './closed-loop.js';

const MINUTE = 60_000;

/** Runs AIMD + AdaptiveRate (defaults) against `make(seed)` for seeds 1–3. */
function runSeeds(make: (seed: number) => ToyServer, durationMs: number): LoopResult[] {
  return [1, 2, 3].map((seed) =>
    runClosedLoop(make(seed), new AimdLimit(), new AdaptiveRate(), durationMs),
  );
}

function worst(results: LoopResult[]): { goodput: number; rejected: number } {
  return {
    goodput: Math.min(...results.map((r) => r.goodput)),
    rejected: Math.max(...results.map((r) => r.rejected)),
  };
}

/**
 * Control quality of the two algorithms alone, on a small loop with ±20 %
 * seeded latency jitter (the simulator measures the whole controller).
 * Thresholds sit just under what was measured, so a regression fails.
 */
describe('AIMD + AdaptiveRate in a closed loop, 5 minutes, 350 ms', () => {
  it('fixed window of 30 req/s, 429 + Retry-After: 1 (reference 000): >= 93 % with <= 1 % rejected', () => {
    const result = worst(
      runSeeds((seed) => fixedWindow([[0, 30]], seededRandom(seed)), 5 * MINUTE),
    );
    expect(result.goodput).toBeGreaterThanOrEqual(0.93);
    expect(result.rejected).toBeLessThanOrEqual(0.01);
  });

  it('sliding-window log of 30 per second: >= 93 %, <= 1 % rejected', () => {
    const result = worst(runSeeds((seed) => slidingWindow(30, seededRandom(seed)), 5 * MINUTE));
    expect(result.goodput).toBeGreaterThanOrEqual(0.93);
    expect(result.rejected).toBeLessThanOrEqual(0.01);
  });

  it('token bucket of 30 req/s, burst 30: >= 97 %, <= 1 % rejected', () => {
    const result = worst(runSeeds((seed) => tokenBucket(30, 30, seededRandom(seed)), 5 * MINUTE));
    expect(result.goodput).toBeGreaterThanOrEqual(0.97);
    expect(result.rejected).toBeLessThanOrEqual(0.01);
  });

  it('capacity 30 → 10 → 40 req/s (100 s each): >= 82 %, <= 2 % rejected', () => {
    const schedule = [
      [0, 30],
      [100_000, 10],
      [200_000, 40],
    ] as const;
    const result = worst(runSeeds((seed) => fixedWindow(schedule, seededRandom(seed)), 5 * MINUTE));
    expect(result.goodput).toBeGreaterThanOrEqual(0.82);
    expect(result.rejected).toBeLessThanOrEqual(0.02);
  });

  it('published quota headers: no 429 at all, >= 93 %', () => {
    const result = worst(
      runSeeds((seed) => fixedWindow([[0, 30]], seededRandom(seed), true), 5 * MINUTE),
    );
    expect(result.rejected).toBe(0);
    expect(result.goodput).toBeGreaterThanOrEqual(0.93);
  });

  it('probes above a steady ceiling about once a minute, no more than twice', () => {
    const rate = new AdaptiveRate();
    const pauses: number[] = [];
    runClosedLoop(
      fixedWindow([[0, 30]], seededRandom(4)),
      new AimdLimit(),
      rate,
      15 * MINUTE,
      (at, policy) => {
        if (policy.pausedUntil > 0 && pauses.at(-1) !== policy.pausedUntil) pauses.push(at);
      },
    );
    const late = pauses.filter((at) => at > 5 * MINUTE);
    const events = late.filter((at, i) => i === 0 || at - (late[i - 1] ?? 0) > 5000).length;
    expect(events).toBeGreaterThanOrEqual(5); // it does keep probing
    expect(events).toBeLessThanOrEqual(15); // 10 minutes: measured 10
    expect(rate.ceiling).toBeGreaterThan(29);
    expect(rate.ceiling).toBeLessThan(31);
  });
});
