import { describe, expect, it } from 'vitest';
import {
  ThroughputDecayDetector,
  type ThroughputNormalisation,
} from '../../src/detect/throughput-decay.js';
import { InvalidOptionError } from '../../src/errors.js';
import { seededRandom } from '../../src/random.js';
import { closedLoop, type Exchange, openLoop, ramp, replay } from './traffic.js';

const MIN = 60_000;
const MODES: ThroughputNormalisation[] = ['per-inflight', 'none'];

const shift =
  (ms: number) =>
  (e: Exchange): Exchange => ({ sentAt: e.sentAt + ms, at: e.at + ms });

/** Ten workers against a target whose latency follows `latencyMs` (±30 % seeded noise). */
function tenWorkers(seed: number, latencyMs: (t: number) => number, durationMs: number) {
  return closedLoop({
    durationMs,
    maxWorkers: 10,
    workers: () => 10,
    latencyMs,
    noise: 0.3,
    random: seededRandom(seed),
  });
}

describe('ThroughputDecayDetector', () => {
  it.each(MODES)('%s: fires once on a 3-minute decline to half the throughput', (mode) => {
    for (let seed = 1; seed <= 5; seed++) {
      // Latency doubles between minute 5 and minute 8: throughput halves at fixed concurrency.
      const traffic = tenWorkers(seed, ramp(5 * MIN, 8 * MIN, 200, 400), 12 * MIN);
      const events = replay(new ThroughputDecayDetector({ normalise: mode }), traffic);
      expect(events.map((e) => e.transition)).toEqual(['alarm']);
      const at = events[0]?.at ?? 0;
      expect(at).toBeGreaterThan(5 * MIN);
      expect(at).toBeLessThan(9 * MIN);
    }
  });

  it('stays quiet on a busy, healthy target whose demand and latency are noisy', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const random = seededRandom(`workers-${seed}`);
      // Concurrency wanders between 7 and 13 every 5 s; latency is ±30 % per request.
      const crowd = Array.from({ length: 400 }, () => 7 + Math.floor(random.next() * 7));
      const traffic = closedLoop({
        durationMs: 30 * MIN,
        maxWorkers: 13,
        workers: (t) => crowd[Math.floor(t / 5000)] ?? 10,
        latencyMs: () => 250,
        noise: 0.3,
        random: seededRandom(seed),
      });
      const detector = new ThroughputDecayDetector();
      expect(replay(detector, traffic)).toEqual([]);
      expect(detector.state.drop).toBeLessThan(0.1);
    }
  });

  it.each(MODES)('%s: stays quiet at constant demand with ±30 %% latency noise', (mode) => {
    for (let seed = 1; seed <= 5; seed++) {
      const traffic = tenWorkers(seed, () => 250, 30 * MIN);
      expect(replay(new ThroughputDecayDetector({ normalise: mode }), traffic)).toEqual([]);
    }
  });

  it('does not let a start-up burst set the peak (warm-up)', () => {
    // 40 responses arrive in the first 200 ms (a pre-warmed pool), then a steady 40 req/s.
    const burst = Array.from({ length: 40 }, (_, i) => ({ sentAt: 0, at: 5 * i }));
    const traffic = [...burst, ...tenWorkers(7, () => 250, 10 * MIN).map(shift(200))];
    const patient = new ThroughputDecayDetector({ normalise: 'none' });
    expect(replay(patient, traffic)).toEqual([]);
    expect(patient.state.warm).toBe(true);
    // Without warm-up, the burst's 200 req/s becomes the peak and the steady rate looks like decay.
    const hasty = new ThroughputDecayDetector({
      normalise: 'none',
      minSamples: 1,
      minElapsedMs: 0,
    });
    expect(replay(hasty, traffic)[0]?.transition).toBe('alarm');
  });

  it('judges nothing before both warm-up conditions hold', () => {
    const traffic = tenWorkers(2, (t) => (t < 30_000 ? 100 : 400), 3 * MIN);
    // Judged early, the slowdown at 0:30 is caught; with a 2-minute warm-up it is the starting point.
    expect(replay(new ThroughputDecayDetector({ minElapsedMs: 0 }), traffic)).toHaveLength(1);
    expect(replay(new ThroughputDecayDetector({ minElapsedMs: 120_000 }), traffic)).toEqual([]);
    const few = new ThroughputDecayDetector({ minSamples: 100_000, minElapsedMs: 0 });
    expect(replay(few, traffic)).toEqual([]);
    expect(few.state.warm).toBe(false);
  });

  it('does not judge a rate too thin for its time constant (instead of a fixed 2 req/s floor)', () => {
    /** Poisson arrivals at 0.5 req/s for an hour: the count in 30 s is ~15, noise ±18 %. */
    const sparse = (seed: number) => {
      const random = seededRandom(seed);
      const out: Exchange[] = [];
      for (let t = 0; t < 60 * MIN; t += -2000 * Math.log(1 - random.next())) {
        out.push({ sentAt: t, at: t + 300 });
      }
      return out;
    };
    let unguarded = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const guarded = new ThroughputDecayDetector({ normalise: 'none' });
      expect(replay(guarded, sparse(seed))).toEqual([]);
      expect(guarded.state.warm).toBe(false);
      // A longer memory (5 min ≈ 150 completions) makes the same stream judgeable — and quiet.
      const patient = new ThroughputDecayDetector({ normalise: 'none', timeConstantMs: 5 * MIN });
      expect(replay(patient, sparse(seed))).toEqual([]);
      expect(patient.state.warm).toBe(true);
      const hasty = new ThroughputDecayDetector({ normalise: 'none', minSamples: 1 });
      unguarded += replay(hasty, sparse(seed)).length;
    }
    expect(unguarded).toBeGreaterThan(0); // without the guard, noise alone raises alarms
  });

  it('reads a steady rate correctly from the first seconds (no warm-up ramp)', () => {
    const traffic = openLoop({
      durationMs: 10_000,
      rateRps: () => 20,
      latencyMs: () => 100,
      noise: 0,
      random: seededRandom(1),
    });
    const detector = new ThroughputDecayDetector({ normalise: 'none' });
    for (const exchange of traffic) detector.observe(exchange);
    // A count over a 120 s lookback would say 10 s × 20 / 120 ≈ 1.7 req/s here.
    expect(detector.state.throughputRps).toBeGreaterThan(19);
    expect(detector.state.throughputRps).toBeLessThan(21.5);
  });

  it.each(MODES)('%s: clears after recovery and re-arms for the next decline', (mode) => {
    const latency = (t: number): number => {
      if (t < 4 * MIN) return 200;
      if (t < 8 * MIN) return 450; // throttled
      if (t < 12 * MIN) return 200; // recovered
      return 450; // throttled again
    };
    const events = replay(
      new ThroughputDecayDetector({ normalise: mode }),
      tenWorkers(3, latency, 16 * MIN),
    );
    expect(events.map((e) => e.transition)).toEqual(['alarm', 'clear', 'alarm']);
    const [first, clear, second] = events.map((e) => e.at / MIN);
    expect(first).toBeGreaterThan(4);
    expect(clear).toBeGreaterThan(8);
    expect(second).toBeGreaterThan(12);
  });

  describe('demand normalisation', () => {
    const cut = (t: number): number => {
      if (t < 5 * MIN) return 10;
      if (t < 10 * MIN) return 3; // the controller cut concurrency by 70 %
      return Math.max(0, 10 - Math.floor((t - 10 * MIN) / 30_000)); // then the batch drains
    };
    const closed = closedLoop({
      durationMs: 15 * MIN,
      maxWorkers: 10,
      workers: cut,
      latencyMs: () => 200,
      noise: 0.3,
      random: seededRandom(3),
    });
    const open = openLoop({
      durationMs: 15 * MIN,
      rateRps: (t) => (t < 5 * MIN ? 20 : t < 10 * MIN ? 5 : 1),
      latencyMs: () => 300,
      noise: 0.3,
      random: seededRandom(4),
    });

    it('raw throughput mistakes a concurrency cut or a rate cut for throttling', () => {
      expect(replay(new ThroughputDecayDetector({ normalise: 'none' }), closed)).toHaveLength(1);
      expect(replay(new ThroughputDecayDetector({ normalise: 'none' }), open)).toHaveLength(1);
    });

    it('per-inflight throughput does not fire when only our offered load fell', () => {
      const onClosed = new ThroughputDecayDetector();
      expect(replay(onClosed, closed)).toEqual([]);
      expect(onClosed.state.throughputRps).toBeLessThan(15); // it was 50 req/s before the cut
      expect(onClosed.state.drop).toBeLessThan(0.2);
      const onOpen = new ThroughputDecayDetector();
      expect(replay(onOpen, open)).toEqual([]);
      expect(onOpen.state.drop).toBeLessThan(0.2);
    });
  });

  it('per-inflight: a total stall fires before the stuck requests finish, given the in-flight count', () => {
    // Healthy for 5 minutes, then every request sent after 5:00 hangs for 3 minutes.
    const latency = (t: number): number => (t < 5 * MIN ? 200 : 3 * MIN);
    const traffic = tenWorkers(5, latency, 9 * MIN);
    const events = replay(new ThroughputDecayDetector(), traffic);
    expect(events[0]?.transition).toBe('alarm');
    expect(events[0]?.at ?? Infinity).toBeLessThan(6 * MIN);
  });

  it('ignores unusable completions and needs sentAt in per-inflight mode', () => {
    const detector = new ThroughputDecayDetector({ minSamples: 1, minElapsedMs: 0 });
    expect(detector.observe({ at: Number.NaN, sentAt: 0 })).toBeUndefined();
    expect(detector.observe({ at: 100 })).toBeUndefined();
    expect(detector.state.samples).toBe(0);
    expect(detector.tick(1000, 3)).toBeUndefined();
  });

  it('validates its options with messages naming option, value and expectation', () => {
    expect(() => new ThroughputDecayDetector({ decayFraction: 1.5 })).toThrow(
      /decayFraction` must be a number >= 0.01 and <= 0.99, got 1.5/,
    );
    expect(
      () => new ThroughputDecayDetector({ decayFraction: 0.35, recoverFraction: 0.6 }),
    ).toThrow(/recoverFraction` must be a number > 1 − decayFraction/);
    expect(() => new ThroughputDecayDetector({ normalise: 'inflight' as never })).toThrow(
      InvalidOptionError,
    );
    expect(() => new ThroughputDecayDetector({ lookback: 1 } as never)).toThrow(/unknown option/);
  });
});
