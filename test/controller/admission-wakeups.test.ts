import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import type { ConcurrencyLimit, RatePolicy } from '../../src/algorithms/sample.js';
import type { Clock } from '../../src/clock.js';
import type { Permit } from '../../src/controller/permit.js';
import {
  ScopeController,
  type ScopeControllerOptions,
} from '../../src/controller/scope-controller.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { hasty } from './hasty-clock.js';

/**
 * Every source that must wake a caller waiting for admission, each on its own:
 * the caller is admitted at the very moment its source fires — not at the next
 * unrelated event, not later.
 */

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
const reset: Signal = { kind: 'reset', reason: 'ECONNRESET' };
/** A failure for the breaker that leaves the rate alone. */
const refused: Signal = { kind: 'refused', reason: 'ECONNREFUSED' };
const throttled = (retryAfterMs: number): Signal => ({
  kind: 'throttled',
  reason: '429',
  status: 429,
  retryAfterMs,
});

/** A limit that changes only when told: the fleet's shared limit, say. */
class SetLimit implements ConcurrencyLimit {
  limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  onSample(): number {
    return this.limit;
  }
}

/** A rate that changes only when told. */
class SetRate implements RatePolicy {
  rate = Infinity;
  pausedUntil = 0;
  onSample(): void {}
}

function setup(
  extra: Partial<ScopeControllerOptions> = {},
  timers: (clock: VirtualClock) => Clock = (clock) => clock,
) {
  const clock = new VirtualClock();
  const controller = new ScopeController('host:wake', {
    clock: timers(clock),
    random: seededRandom(1),
    limit: new SetLimit(1),
    rate: new AdaptiveRate(),
    breaker: false,
    ...extra,
  });
  /** Parks a caller; `at` is when it was admitted. */
  const wait = () => {
    const waiter: { at?: number; permit?: Permit; error?: unknown } = {};
    controller.admit().then(
      (permit) => {
        waiter.at = clock.now();
        waiter.permit = permit;
      },
      (error) => {
        waiter.error = error;
      },
    );
    return waiter;
  };
  return { clock, controller, wait };
}

describe('a caller waiting for admission is woken at once by', () => {
  it('a permit reported as a reset (the slot is free, no pause)', async () => {
    const { clock, controller, wait } = setup();
    const first = await controller.admit();
    const waiter = wait();
    await clock.advance(30);
    expect(waiter.at).toBeUndefined();
    first.report(reset);
    await clock.advance(0);
    expect(waiter.at).toBe(30);
  });

  it('a permit released without an outcome (an abort, a redirect discarded)', async () => {
    const { clock, controller, wait } = setup();
    const first = await controller.admit();
    const waiter = wait();
    await clock.advance(30);
    first.release();
    await clock.advance(0);
    expect(waiter.at).toBe(30);
  });

  it('a limit raised from outside (refresh)', async () => {
    const limit = new SetLimit(1);
    const { clock, controller, wait } = setup({ limit });
    await controller.admit();
    const waiters = [wait(), wait()];
    await clock.advance(30);
    limit.limit = 3;
    controller.refresh();
    await clock.advance(0);
    expect(waiters.map((w) => w.at)).toEqual([30, 30]);
  });

  it("the end of the server's pause", async () => {
    const { clock, controller, wait } = setup({ limit: new SetLimit(2) });
    (await controller.admit()).report(throttled(2000));
    expect(controller.pause?.until).toBe(2000);
    const waiter = wait();
    await clock.advance(1999);
    expect(waiter.at).toBeUndefined();
    await clock.advance(1);
    expect(waiter.at).toBe(2000);
  });

  it('the end of a pause that began while the caller already waited at the pacer', async () => {
    const rate = new SetRate();
    const { clock, controller, wait } = setup({ limit: new SetLimit(3), rate });
    rate.rate = 1; // one a second: the second caller waits at the pacer
    controller.refresh();
    const first = await controller.admit();
    const waiter = wait();
    await clock.advance(100);
    rate.pausedUntil = 5000;
    first.report(ok);
    await clock.advance(4899);
    expect(waiter.at).toBeUndefined();
    await clock.advance(1);
    expect(waiter.at).toBe(5000);
  });

  it('a rate raised from outside while the caller waits for a token', async () => {
    const rate = new SetRate();
    const { clock, controller, wait } = setup({ limit: new SetLimit(3), rate });
    rate.rate = 0.1; // a token every 10 s
    controller.refresh();
    await controller.admit();
    const waiter = wait();
    await clock.advance(100);
    rate.rate = 100;
    controller.refresh();
    await clock.advance(10);
    expect(waiter.at).toBeLessThanOrEqual(110);
  });

  it("the breaker's turn to half-open: the first caller goes as the probe", async () => {
    const { clock, controller, wait } = setup({
      breaker: { threshold: 1, cooldownMs: 1000, jitter: 0 },
    });
    (await controller.admit()).report(refused);
    expect(controller.breaker).toBe('open');
    const waiter = wait();
    await clock.advance(999);
    expect(waiter.at).toBeUndefined();
    await clock.advance(1);
    expect(waiter.at).toBe(1000);
  });

  it("the probe's success: every caller parked at the breaker goes, up to the limit", async () => {
    const { clock, controller, wait } = setup({
      limit: new SetLimit(3),
      breaker: { threshold: 1, cooldownMs: 1000, jitter: 0 },
    });
    (await controller.admit()).report(refused);
    const probe = wait();
    const parked = [wait(), wait()];
    await clock.advance(1000);
    expect(probe.at).toBe(1000);
    await clock.advance(50);
    probe.permit?.report(ok);
    await clock.advance(0);
    expect(parked.map((w) => w.at)).toEqual([1050, 1050]);
  });

  it('a probe given back without an outcome: the next caller becomes the probe', async () => {
    const { clock, controller, wait } = setup({
      breaker: { threshold: 1, cooldownMs: 1000, jitter: 0 },
    });
    (await controller.admit()).report(refused);
    const probe = wait();
    const next = wait();
    await clock.advance(1000);
    expect(probe.at).toBe(1000);
    await clock.advance(50);
    probe.permit?.release();
    await clock.advance(0);
    expect(next.at).toBe(1050);
  });

  it('a probe that says nothing of the server (a client error): the next caller probes', async () => {
    const { clock, controller, wait } = setup({
      breaker: { threshold: 1, cooldownMs: 1000, jitter: 0 },
    });
    (await controller.admit()).report(refused);
    const probe = wait();
    const next = wait();
    await clock.advance(1000);
    await clock.advance(50);
    probe.permit?.report({ kind: 'client-error', reason: '404', status: 404 });
    await clock.advance(0);
    expect(next.at).toBe(1050);
  });
});

describe('on a clock whose timers fire early, a waiter is still woken', () => {
  it("by the breaker's turn to half-open", async () => {
    const { clock, controller, wait } = setup(
      {
        breaker: { threshold: 1, cooldownMs: 1000, jitter: 0 },
      },
      hasty,
    );
    (await controller.admit()).report(refused);
    const waiter = wait();
    await clock.advance(1000);
    expect(waiter.at).toBe(1000);
  });

  it("by the end of the server's pause", async () => {
    const { clock, controller, wait } = setup({ limit: new SetLimit(2) }, hasty);
    (await controller.admit()).report(throttled(2000));
    const waiter = wait();
    await clock.advance(2000);
    expect(waiter.at).toBe(2000);
  });
});
