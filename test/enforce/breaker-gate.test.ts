import { describe, expect, it } from 'vitest';
import { BreakerPolicy } from '../../src/algorithms/breaker-policy.js';
import { BreakerGate, type Pass } from '../../src/enforce/breaker-gate.js';
import type { BreakerState } from '../../src/events/event.js';
import { seededRandom } from '../../src/random.js';
import { VirtualClock } from '../../src/virtual-clock.js';

function setup(options = {}) {
  const clock = new VirtualClock();
  const policy = new BreakerPolicy(seededRandom(1), {
    cooldownMs: 1000,
    jitter: 0,
    threshold: 3,
    ...options,
  });
  const changes: BreakerState[] = [];
  const gate = new BreakerGate(policy, clock, (state) => changes.push(state));
  const fail = (pass: Pass, sentAt: number, retryAfterMs?: number) =>
    gate.report({
      sentAt,
      at: clock.now(),
      effect: 'failure',
      probe: pass === 'probe',
      retryAfterMs: retryAfterMs ?? 0,
    });
  const succeed = (pass: Pass, sentAt: number) =>
    gate.report({
      sentAt,
      at: clock.now(),
      effect: 'success',
      probe: pass === 'probe',
      retryAfterMs: 0,
    });
  return { clock, policy, gate, changes, fail, succeed };
}

describe('BreakerPolicy + BreakerGate', () => {
  it('counts a burst of failures from requests in flight together as one strike', async () => {
    const { clock, gate, fail } = setup();
    await clock.advance(10);
    for (let i = 0; i < 30; i++) fail('pass', 0);
    expect(gate.state).toBe('closed');
  });

  it('opens after `threshold` strikes with no success between; a success resets the count', async () => {
    const { clock, gate, fail, succeed, changes } = setup();
    for (let i = 0; i < 2; i++) {
      await clock.advance(10);
      fail('pass', clock.now() - 5);
    }
    succeed('pass', clock.now());
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      fail('pass', clock.now() - 5);
    }
    expect(gate.state).toBe('open');
    expect(changes).toEqual(['open']);
  });

  it('parks callers while open, then a timer releases exactly one probe; its success releases all', async () => {
    const { clock, gate, fail, succeed, changes } = setup();
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      fail('pass', clock.now() - 5);
    }
    const passes: Pass[] = [];
    const parked = Array.from({ length: 4 }, () => gate.pass().then((p) => passes.push(p)));
    await clock.advance(999);
    expect(passes).toEqual([]);
    await clock.advance(1); // no unrelated event needed: the gate's own timer fires
    expect(passes).toEqual(['probe']);
    expect(gate.tryPass()).toBeUndefined(); // the probe is out
    succeed('probe', clock.now());
    await Promise.all(parked);
    expect(passes).toEqual(['probe', 'pass', 'pass', 'pass']);
    expect(changes).toEqual(['open', 'half-open', 'closed']);
  });

  it('a failed probe reopens with a longer cooldown', async () => {
    const { clock, gate, fail } = setup();
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      fail('pass', clock.now() - 5);
    }
    await clock.advance(1000);
    expect(gate.tryPass()).toBe('probe');
    fail('probe', clock.now());
    await clock.advance(1999);
    expect(gate.state).toBe('open');
    await clock.advance(1);
    expect(gate.state).toBe('half-open');
  });

  it('stays open for max(cooldown, Retry-After); a long Retry-After opens it by itself', async () => {
    const { clock, gate, fail } = setup({ openOnRetryAfterMs: 5000 });
    await clock.advance(10);
    fail('pass', 0, 8000);
    expect(gate.state).toBe('open');
    await clock.advance(7999);
    expect(gate.state).toBe('open');
    await clock.advance(1);
    expect(gate.state).toBe('half-open');
  });

  it('an abandoned probe hands the probe to the next parked caller', async () => {
    const { clock, gate, fail } = setup();
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      fail('pass', clock.now() - 5);
    }
    await clock.advance(1000);
    expect(gate.tryPass()).toBe('probe');
    const next = gate.pass();
    gate.abandon('probe');
    await expect(next).resolves.toBe('probe');
  });

  it('spreads the open time around the cooldown, never shorter than a Retry-After', () => {
    const opened = (seed: number, retryAfterMs: number) => {
      const policy = new BreakerPolicy(seededRandom(seed), {
        cooldownMs: 1000,
        threshold: 1,
        jitter: 0.5,
        openOnRetryAfterMs: 100,
      });
      policy.onOutcome({ sentAt: 0, at: 10, effect: 'failure', probe: false, retryAfterMs });
      expect(policy.toJSON()).toMatchObject({ state: 'open', openedAt: 10 });
      return policy.openUntil - 10;
    };
    const spread = Array.from({ length: 50 }, (_, seed) => opened(seed, 0));
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(750);
    expect(Math.max(...spread)).toBeLessThanOrEqual(1250);
    expect(Math.min(...spread)).toBeLessThan(850); // both sides of the cooldown are drawn
    expect(Math.max(...spread)).toBeGreaterThan(1150);
    const asked = Array.from({ length: 50 }, (_, seed) => opened(seed, 1000));
    expect(Math.min(...asked)).toBeGreaterThanOrEqual(1000);
  });

  it('ends a pause the server named when it said, whatever the jitter', () => {
    const policy = (seed: number) =>
      new BreakerPolicy(seededRandom(seed), { cooldownMs: 1000, threshold: 1, jitter: 2 });
    for (let seed = 0; seed < 50; seed++) {
      // A long Retry-After opens it by itself: open exactly as long as asked.
      const paused = policy(seed);
      paused.onOutcome({ sentAt: 0, at: 10, effect: 'refusal', probe: false, retryAfterMs: 8000 });
      expect(paused.openUntil - 10).toBe(8000);
      // Its probe refused again with a long Retry-After: reopened exactly as long as asked.
      paused.onOutcome({
        sentAt: 8010,
        at: 8020,
        effect: 'refusal',
        probe: true,
        retryAfterMs: 6000,
      });
      expect(paused.openUntil - 8020).toBe(6000);
      // Failures asking longer than the cooldown: the ask, not the ask spread by jitter.
      const failed = policy(seed);
      failed.onOutcome({ sentAt: 0, at: 10, effect: 'failure', probe: false, retryAfterMs: 3000 });
      expect(failed.openUntil - 10).toBe(3000);
    }
  });
});

describe('BreakerGate restored from a saved state', () => {
  it('an open breaker turns half-open by its own timer, and a corrupt state is ignored', async () => {
    const clock = new VirtualClock();
    const saved = {
      state: 'open' as const,
      strikes: 0,
      lastStrikeAt: 0,
      openedAt: 0,
      openUntil: 500,
      cooldownMs: 1000,
    };
    const gate = new BreakerGate(new BreakerPolicy(seededRandom(1), {}, saved), clock);
    const passed = gate.pass();
    await clock.advance(499);
    expect(gate.queued).toBe(1);
    await clock.advance(1);
    await expect(passed).resolves.toBe('probe');
    const corrupt = { ...saved, openUntil: Number.NaN };
    expect(new BreakerPolicy(seededRandom(1), {}, corrupt).stateAt(0)).toBe('closed');
  });
});
