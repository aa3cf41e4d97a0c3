import { describe, expect, it } from 'vitest';
import type { Backoff } from '../../src/backoff/backoff.js';
import { fullJitter } from '../../src/backoff/full-jitter.js';
import { noJitter } from '../../src/backoff/no-jitter.js';
import { type Random, seededRandom } from '../../src/random.js';

// The thundering herd: ten workers that all got a 429 at once retry
// on attempt 3 (an 8 s window). Per trial, count the largest number of retries
// that land in the same 0.1 s bucket; average over 2,000 trials.
const WORKERS = 10;
const TRIALS = 2000;
const ATTEMPT = 3;

function averagePeak(backoff: Backoff, random: Random): number {
  let total = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const buckets = new Map<number, number>();
    for (let worker = 0; worker < WORKERS; worker++) {
      const bucket = Math.round(backoff.delayMs(ATTEMPT, random) / 100);
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    }
    total += Math.max(...buckets.values());
  }
  return total / TRIALS;
}

describe('synchronised retries', () => {
  it('without jitter all ten retry in the same 0.1 s slot: exactly 10.00', () => {
    expect(noJitter().delayMs(ATTEMPT, seededRandom(0))).toBe(8000);
    expect(averagePeak(noJitter(), seededRandom(0))).toBe(10);
  });

  it('full jitter over 0–8 s breaks the herd to ≈1.46 per slot', () => {
    const peak = averagePeak(fullJitter(), seededRandom(2024));
    expect(peak).toBeGreaterThan(1.4);
    expect(peak).toBeLessThan(1.52);
  });

  it('holds across seeds, not just one lucky one', () => {
    const peaks = [1, 2, 3, 4, 5].map((seed) => averagePeak(fullJitter(), seededRandom(seed)));
    for (const peak of peaks) expect(peak).toBeGreaterThan(1.38);
    for (const peak of peaks) expect(peak).toBeLessThan(1.54);
  });
});
