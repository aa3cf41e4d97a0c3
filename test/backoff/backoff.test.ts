import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backoff, BackoffOptions } from '../../src/backoff/backoff.js';
import { decorrelatedJitter } from '../../src/backoff/decorrelated-jitter.js';
import { equalJitter } from '../../src/backoff/equal-jitter.js';
import { defaultBackoff, fullJitter } from '../../src/backoff/full-jitter.js';
import { noJitter } from '../../src/backoff/no-jitter.js';
import { InvalidOptionError } from '../../src/errors.js';
import { seededRandom } from '../../src/random.js';

const STRATEGIES = { fullJitter, equalJitter, noJitter, decorrelatedJitter } as const;

const options = fc
  .record({
    baseMs: fc.double({ min: 1, max: 10_000, noNaN: true }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    extraCapMs: fc.double({ min: 0, max: 200_000, noNaN: true }),
  })
  .map(({ baseMs, factor, extraCapMs }) => ({ baseMs, factor, capMs: baseMs + extraCapMs }));
const attempt = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2.5, 1e300),
);

function mean(backoff: Backoff, attemptNumber: number, draws: number, seed: number): number {
  const random = seededRandom(seed);
  let sum = 0;
  for (let i = 0; i < draws; i++) sum += backoff.delayMs(attemptNumber, random);
  return sum / draws;
}

describe('exponential window', () => {
  it('doubles from 1 s and stops at the 60 s cap by default', () => {
    const plain = noJitter();
    const delays = [0, 1, 2, 3, 4, 5, 6, 7, 50].map((n) => plain.delayMs(n, seededRandom(1)));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('treats negative and NaN attempts as the first, huge ones as capped', () => {
    const plain = noJitter({ baseMs: 100, factor: 3, capMs: 5000 });
    const random = seededRandom(1);
    expect(plain.delayMs(-4, random)).toBe(100);
    expect(plain.delayMs(Number.NaN, random)).toBe(100);
    expect(plain.delayMs(Number.POSITIVE_INFINITY, random)).toBe(5000);
    expect(noJitter({ factor: 1 }).delayMs(Number.POSITIVE_INFINITY, random)).toBe(1000);
  });
});

describe('backoff strategies: properties', () => {
  for (const [name, make] of Object.entries(STRATEGIES)) {
    it(`${name}: every delay is finite and within [0, capMs]`, () => {
      fc.assert(
        fc.property(
          options,
          attempt,
          fc.integer(),
          fc.option(fc.double()),
          (opts, n, seed, previous) => {
            const { factor, ...decorrelatedOptions } = opts;
            const backoff =
              name === 'decorrelatedJitter' ? decorrelatedJitter(decorrelatedOptions) : make(opts);
            const delay = backoff.delayMs(n, seededRandom(seed), previous ?? undefined);
            expect(Number.isFinite(delay)).toBe(true);
            expect(delay).toBeGreaterThanOrEqual(0);
            expect(delay).toBeLessThanOrEqual(opts.capMs);
          },
        ),
        { numRuns: 1000 },
      );
    });
  }

  it('full jitter is uniform over the window: mean ≈ half of it, spread over all of it', () => {
    expect(mean(fullJitter(), 3, 20_000, 7)).toBeGreaterThan(3940);
    expect(mean(fullJitter(), 3, 20_000, 7)).toBeLessThan(4060);
    const random = seededRandom(8);
    const delays = Array.from({ length: 5000 }, () => fullJitter().delayMs(3, random));
    expect(Math.min(...delays)).toBeLessThan(20);
    expect(Math.max(...delays)).toBeGreaterThan(7980);
  });

  it('equal jitter waits at least half the window and less than all of it', () => {
    fc.assert(
      fc.property(options, fc.integer({ min: 0, max: 30 }), fc.integer(), (opts, n, seed) => {
        const window = noJitter(opts).delayMs(n, seededRandom(0));
        const delay = equalJitter(opts).delayMs(n, seededRandom(seed));
        expect(delay).toBeGreaterThanOrEqual(window / 2);
        expect(delay).toBeLessThanOrEqual(window);
      }),
    );
    expect(mean(equalJitter(), 3, 20_000, 9)).toBeCloseTo(6000, -2);
  });

  it('decorrelated jitter stays within [baseMs, capMs] along whole sequences', () => {
    fc.assert(
      fc.property(options, fc.integer(), (opts, seed) => {
        const backoff = decorrelatedJitter({ baseMs: opts.baseMs, capMs: opts.capMs });
        const random = seededRandom(seed);
        let previous: number | undefined;
        for (let n = 0; n < 30; n++) {
          const delay = backoff.delayMs(n, random, previous);
          expect(delay).toBeGreaterThanOrEqual(opts.baseMs);
          expect(delay).toBeLessThanOrEqual(opts.capMs);
          previous = delay;
        }
      }),
    );
  });

  it('decorrelated jitter draws from [base, 3 × previous): it grows from the previous delay', () => {
    const backoff = decorrelatedJitter({ baseMs: 100, capMs: 1e9 });
    const random = seededRandom(3);
    for (let i = 0; i < 2000; i++) {
      const delay = backoff.delayMs(0, random, 10_000);
      expect(delay).toBeGreaterThanOrEqual(100);
      expect(delay).toBeLessThan(30_000);
    }
    expect(backoff.delayMs(0, { next: () => 0.999999 })).toBeCloseTo(300, 0); // first: previous = base
  });

  it('is reproducible: the same seed gives the same delays', () => {
    const run = (seed: number) => {
      const random = seededRandom(seed);
      return [0, 1, 2, 3].map((n) => defaultBackoff.delayMs(n, random));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });

  it('names each strategy', () => {
    expect(defaultBackoff.name).toBe('full-jitter');
    expect(Object.values(STRATEGIES).map((make) => make().name)).toEqual([
      'full-jitter',
      'equal-jitter',
      'no-jitter',
      'decorrelated-jitter',
    ]);
  });
});

describe('backoff options', () => {
  it.each<[string, BackoffOptions | Record<string, unknown>, RegExp]>([
    ['baseMs below 1', { baseMs: 0 }, /fullJitter: option `baseMs` must be a number >= 1, got 0/],
    ['factor below 1', { factor: 0.5 }, /`factor` must be a number >= 1/],
    ['infinite cap', { capMs: Number.POSITIVE_INFINITY }, /`capMs`/],
    [
      'cap below base',
      { baseMs: 5000, capMs: 1000 },
      /`capMs` must be a number >= baseMs \(5000\), got 1000/,
    ],
    ['unknown option', { jitter: 'full' }, /unknown option `jitter`/],
  ])('rejects %s', (_why, bad, message) => {
    expect(() => fullJitter(bad as BackoffOptions)).toThrow(InvalidOptionError);
    expect(() => fullJitter(bad as BackoffOptions)).toThrow(message);
  });

  it('decorrelated jitter has no factor option', () => {
    expect(() => decorrelatedJitter({ factor: 2 } as never)).toThrow(
      /decorrelatedJitter: unknown option `factor`/,
    );
  });
});
