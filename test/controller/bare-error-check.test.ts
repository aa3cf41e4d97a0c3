import { describe, expect, it } from 'vitest';
import { BareErrorCheck } from '../../src/controller/bare-error-check.js';
import { seededRandom } from '../../src/random.js';

/** Feeds `n` held outcomes, bare where `bareAt(i)`, and returns the indexes tried as refusals. */
const feed = (check: BareErrorCheck, n: number, bareAt: (i: number) => boolean) =>
  Array.from({ length: n }, (_, i) => (check.observe(bareAt(i), true) ? i : -1)).filter(
    (i) => i >= 0,
  );

describe('BareErrorCheck', () => {
  it('tries a limit that refuses one in twenty-five held outcomes within a few hundred outcomes', () => {
    // A limiter refusing 4 % of a rate held just above its capacity: under the twentieth a share
    // alone set off, it was noise for good (40 req/s: 10 refusals a minute, never obeyed).
    const tried = feed(new BareErrorCheck(), 2000, (i) => i % 25 === 24);
    expect(tried[0]).toBeLessThanOrEqual(300);
  });

  it('tries an origin failing 1.5 % of held outcomes at random only now and then', () => {
    // Five minutes at 200 req/s: each trial is one cut, then the share is taken for noise.
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      const tried = feed(new BareErrorCheck(), 60_000, () => random.next() < 0.015);
      expect(tried.length).toBeLessThanOrEqual(15);
    }
  });

  it('forgets a share taken for noise once the errors stop at a held rate', () => {
    const check = new BareErrorCheck();
    const tenth = feed(check, 3000, (i) => i % 10 === 9);
    // The errors went on after the trials: noise, no longer tried at that share.
    expect(tenth.filter((i) => i >= 2000)).toHaveLength(0);
    feed(check, 2000, () => false);
    // A limit refusing a twenty-fifth is tried again, not hidden behind the noise that stopped.
    expect(feed(check, 1000, (i) => i % 25 === 24)[0]).toBeLessThanOrEqual(300);
  });
});
