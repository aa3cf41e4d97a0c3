import { describe, expect, it } from 'vitest';
import { BreakerPolicy } from '../../src/algorithms/breaker-policy.js';
import { seededRandom } from '../../src/random.js';

/**
 * A server that is up for `halfMs`, down for `halfMs`, and so on. The breaker
 * opens on a failure in a down spell; its half-open probe succeeds if it lands
 * in an up spell. Returns each probe's outcome and the spacing between probes.
 */
function probeAgainstFlapping(halfMs: number, seed: number, openings = 400) {
  const random = seededRandom(seed);
  const policy = new BreakerPolicy(seededRandom(seed + 1), {});
  const up = (t: number) => Math.floor(t / halfMs) % 2 === 0;
  const outcomes: boolean[] = [];
  const spacings: number[] = [];
  let t = halfMs + random.next() * halfMs; // somewhere in the first down spell
  for (let i = 0; i < openings; i++) {
    // Traffic fails in a down spell until the breaker opens (threshold strikes).
    while (policy.stateAt(t) === 'closed') {
      if (up(t)) t = (Math.floor(t / halfMs) + 1) * halfMs + random.next() * 10; // on to the next down spell
      policy.onOutcome({ sentAt: t, at: t + 1, effect: 'failure', probe: false, retryAfterMs: 0 });
      t += 2;
    }
    // Half-open: the probe goes when the open time is up; failures reopen it, a success closes it.
    for (;;) {
      const probeAt = policy.openUntil;
      spacings.push(probeAt - t);
      t = probeAt;
      const ok = up(t);
      outcomes.push(ok);
      policy.onOutcome({
        sentAt: t,
        at: t + 1,
        effect: ok ? 'success' : 'failure',
        probe: true,
        retryAfterMs: 0,
      });
      t += 1;
      if (ok) break;
    }
    t = (Math.floor(t / halfMs) + 1) * halfMs; // closed until the next down spell
    if (up(t)) t += halfMs;
  }
  return { outcomes, spacings };
}

describe('the breaker against a server that flaps on a period', () => {
  it.each([7500, 15_000, 1000, 2500])(
    'probes are not phase-locked (up %i ms, down as long): about half land in an up spell',
    (halfMs) => {
      for (const seed of [1, 2, 3]) {
        const { outcomes } = probeAgainstFlapping(halfMs, seed);
        const share = outcomes.filter(Boolean).length / outcomes.length;
        expect(share).toBeGreaterThan(0.35);
      }
    },
  );

  it('never leaves more than maxCooldownMs between probes, jitter included', () => {
    for (const seed of [1, 2, 3]) {
      const { spacings } = probeAgainstFlapping(2_000_000, seed, 50);
      expect(Math.max(...spacings)).toBeLessThanOrEqual(300_000);
      expect(Math.max(...spacings)).toBeGreaterThan(150_000); // the backoff does reach the cap
    }
  });
});
