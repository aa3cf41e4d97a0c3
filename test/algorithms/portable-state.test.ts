import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { BreakerPolicy } from '../../src/algorithms/breaker-policy.js';
import { breakerFromWall, breakerToWall } from '../../src/algorithms/breaker-snapshot.js';
import type { ClockReading } from '../../src/algorithms/clock-reading.js';
import { GradientLimit } from '../../src/algorithms/gradient.js';
import type { ConcurrencyLimit, RatePolicy } from '../../src/algorithms/sample.js';
import { REACTIONS, type SignalKind } from '../../src/signal.js';
import { throughJson } from './clocks.js';
import { sample } from './samples.js';

/** One outcome: `dt` ms after the previous one, after a round trip of `rtt` ms. */
interface Step {
  dt: number;
  rtt: number;
  inflight: number;
  kind: SignalKind;
  retryAfterMs: number | undefined;
  overConcurrency: boolean;
  remaining: number | undefined;
}

const step: fc.Arbitrary<Step> = fc.record({
  dt: fc.integer({ min: 1, max: 400 }),
  rtt: fc.integer({ min: 1, max: 2500 }),
  inflight: fc.integer({ min: 1, max: 40 }),
  kind: fc.constantFrom<SignalKind>(
    ...Array<SignalKind>(12).fill('ok'),
    'throttled',
    'throttled',
    'overloaded',
    'timeout',
    'reset',
    'server-error',
  ),
  retryAfterMs: fc.option(fc.integer({ min: 0, max: 8000 }), { nil: undefined }),
  overConcurrency: fc.boolean(),
  remaining: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
});

/**
 * Two processes: A learns from `history` on a monotonic clock starting at
 * `originA` and saves `gapMs` after its last outcome, its wall clock reading
 * `wall`; B restores `awayMs` later (its wall clock `wall + awayMs`) on a
 * monotonic clock reading `originB`. Then both see the same `future`.
 */
const twoProcesses = fc.record({
  history: fc.array(step, { maxLength: 250 }),
  future: fc.array(step, { minLength: 1, maxLength: 80 }),
  originA: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  originB: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  wall: fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((ms) => 1_700_000_000_000 + ms),
  gapMs: fc.integer({ min: 0, max: 60_000 }),
  awayMs: fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })),
});
type TwoProcesses = typeof twoProcesses extends fc.Arbitrary<infer T> ? T : never;

/** Feeds `steps` from `start` on; returns the time of the last outcome and what was decided after each. */
function play<T>(steps: readonly Step[], start: number, feed: (s: Step, at: number) => T) {
  let at = start;
  const decisions: T[] = [];
  for (const s of steps) {
    at += s.dt;
    decisions.push(feed(s, at));
  }
  return { end: at, decisions };
}

function sampleOf(s: Step, at: number) {
  return sample({
    at,
    sentAt: at - s.rtt,
    kind: s.kind,
    inflight: s.inflight,
    overConcurrency: s.overConcurrency,
    ...(s.retryAfterMs === undefined ? {} : { retryAfterMs: s.retryAfterMs }),
    ...(s.remaining === undefined
      ? {}
      : { quota: { limit: 100, windowMs: 10_000, remaining: s.remaining, source: 'ietf' } }),
  });
}

const feedLimit = (limit: ConcurrencyLimit) => (s: Step, at: number) =>
  limit.onSample(sampleOf(s, at));

/** What a rate policy decided at `at`: its pause as time left, so two clocks compare. */
const feedRate = (rate: RatePolicy) => (s: Step, at: number) => {
  rate.onSample(sampleOf(s, at));
  const paused = rate.pausedUntil > 0 ? rate.pausedUntil - at : 0;
  return { rate: rate.rate, probing: rate.probing, paused };
};

/** Whether two numbers agree to rounding (1e-9 relative; equal infinities agree). */
function sameToRounding(x: number, y: number): boolean {
  return x === y || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x));
}

interface Portable {
  snapshot(clocks: ClockReading): object;
  restore(state: Readonly<Record<string, unknown>>, clocks: ClockReading): void;
}

/**
 * Runs the two processes for one algorithm: returns what B decided after
 * restoring, what A decided restoring its own state `awayMs` later on its own
 * clock, and what A decided carrying on live.
 */
function compare<T, A extends Portable>(
  p: TwoProcesses,
  fresh: () => A,
  feed: (algorithm: A) => (s: Step, at: number) => T,
) {
  const live = fresh();
  const savedAt = play(p.history, p.originA, feed(live)).end + p.gapMs;
  const saved = throughJson(live.snapshot({ monotonic: savedAt, wall: p.wall }));
  const resume = (clocks: ClockReading) => {
    const algorithm = fresh();
    algorithm.restore(saved as Record<string, unknown>, clocks);
    return play(p.future, clocks.monotonic, feed(algorithm)).decisions;
  };
  const later = savedAt + p.awayMs;
  return {
    inB: resume({ monotonic: p.originB, wall: p.wall + p.awayMs }),
    inA: resume({ monotonic: later, wall: p.wall + p.awayMs }),
    live: play(p.future, later, feed(live)).decisions,
  };
}

describe('algorithm state is portable across processes (two clocks, different origins)', () => {
  for (const [name, fresh] of [
    ['AIMD', () => new AimdLimit()],
    ['the gradient limit', () => new GradientLimit()],
  ] as const) {
    it(`${name} restored in another process decides as the live one would, away that long`, () => {
      fc.assert(
        fc.property(twoProcesses, (p) => {
          const { inB, inA, live } = compare<number, AimdLimit | GradientLimit>(
            p,
            fresh,
            feedLimit,
          );
          expect(inB).toEqual(inA);
          expect(inB).toEqual(live);
        }),
        { numRuns: 200 },
      );
    });
  }

  it('the adaptive rate restored in another process decides as it would restored at home', () => {
    fc.assert(
      fc.property(twoProcesses, (p) => {
        const { inB, inA } = compare(p, () => new AdaptiveRate(), feedRate);
        // The same to rounding: a rate computed from times of different magnitudes differs in
        // the last bits (seed -1825863544: 8.72641407605149 vs 8.726414076051498 req/s).
        expect(inB).toHaveLength(inA.length);
        inB.forEach((decision, i) => {
          const home = inA[i] as (typeof inA)[number];
          expect(decision.probing).toBe(home.probing);
          expect(decision.paused).toBeCloseTo(home.paused, 6);
          expect(sameToRounding(decision.rate, home.rate)).toBe(true);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('a breaker restored in another process opens, waits and probes as the live one would', () => {
    const random = { next: () => 0.3 };
    const feedBreaker = (policy: BreakerPolicy) => (s: Step, at: number) => {
      const sentAt = at - s.rtt;
      const probe = policy.stateAt(sentAt) === 'half-open';
      const effect = REACTIONS[s.kind].breaker;
      policy.onOutcome({ sentAt, at, effect, probe, retryAfterMs: s.retryAfterMs ?? 0 });
      const state = policy.stateAt(at);
      return { state, openFor: state === 'closed' ? 0 : policy.openUntil - at };
    };
    fc.assert(
      fc.property(twoProcesses, (p) => {
        const live = new BreakerPolicy(random, { threshold: 2 });
        const savedAt = play(p.history, p.originA, feedBreaker(live)).end + p.gapMs;
        const saved = throughJson(
          breakerToWall(live.toJSON(), { monotonic: savedAt, wall: p.wall }),
        );
        const inB = new BreakerPolicy(
          random,
          { threshold: 2 },
          breakerFromWall(saved, { monotonic: p.originB, wall: p.wall + p.awayMs }),
        );
        const later = savedAt + p.awayMs;
        expect(play(p.future, p.originB, feedBreaker(inB)).decisions).toEqual(
          play(p.future, later, feedBreaker(live)).decisions,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('saves every time as wall-clock ms: the same state from clocks of any origin', () => {
    fc.assert(
      fc.property(twoProcesses, (p) => {
        const at = (origin: number) => {
          const rate = new AdaptiveRate();
          const end = play(p.history, origin, feedRate(rate)).end;
          return rate.snapshot({ monotonic: end + p.gapMs, wall: p.wall });
        };
        // The same to rounding: rates computed from times of different magnitudes differ in the last bits.
        const a = at(p.originA) as Record<string, unknown>;
        const b = at(p.originB) as Record<string, unknown>;
        expect(Object.keys(b)).toEqual(Object.keys(a));
        for (const key of Object.keys(a)) {
          const [x, y] = [a[key], b[key]];
          if (typeof x === 'number' && typeof y === 'number')
            expect(sameToRounding(x, y)).toBe(true);
          else expect(y).toEqual(x);
        }
      }),
      { numRuns: 100 },
    );
  });
});
