import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { ScopeController } from '../../src/controller/scope-controller.js';
import { ScopePausedError } from '../../src/errors.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { VirtualClock } from '../../src/virtual-clock.js';

const throttled = (retryAfterMs: number): Signal => ({
  kind: 'throttled',
  reason: '429',
  status: 429,
  retryAfterMs,
});

function setup(extra = {}) {
  const clock = new VirtualClock();
  const controller = new ScopeController('host:test', {
    clock,
    random: seededRandom(1),
    limit: new AimdLimit(),
    rate: new AdaptiveRate(),
    ...extra,
  });
  return { clock, controller };
}

describe('a scope paused by the server', () => {
  it('sends no probe before the pause ends, though the breaker half-opens sooner (maxCooldownMs)', async () => {
    const { clock, controller } = setup({ breaker: { maxCooldownMs: 60_000 } });
    (await controller.admit()).report(throttled(200_000));
    expect(controller.pause?.until).toBe(200_000);
    let sentAt: number | undefined;
    const next = controller.admit().then((permit) => {
      sentAt = clock.now();
      return permit;
    });
    await clock.advance(199_999);
    expect(controller.breaker).toBe('half-open');
    expect(sentAt).toBeUndefined();
    await clock.advance(1);
    (await next).report({ kind: 'ok', reason: '200', status: 200 });
    expect(sentAt).toBe(200_000);
    expect(controller.breaker).toBe('closed');
  });

  it('maxPauseMs caps the pause one response asks for', async () => {
    const { controller } = setup({ maxPauseMs: 10_000 });
    (await controller.admit()).report(throttled(86_400_000));
    expect(controller.pause?.until).toBeLessThanOrEqual(10_000);
    expect(controller.pause?.reason).toBe(
      '429 with Retry-After 86400 s, capped at 10 s (maxPauseMs)',
    );
  });

  it('maxPauseWaitMs and a wait timeout: a caller that cannot outlast the pause fails at once', async () => {
    const { controller } = setup({ maxPauseWaitMs: 30_000 });
    (await controller.admit()).report(throttled(60_000));
    await expect(controller.admit()).rejects.toThrow(ScopePausedError);
    await expect(
      controller.admit({ maxPauseWaitMs: 10_000_000, timeoutMs: 50_000 }),
    ).rejects.toThrow(/50 s more until its deadline/);
    const patient = controller.admit({ maxPauseWaitMs: 120_000 });
    expect(controller.queued).toBe(1);
    patient.catch(() => {});
  });
});
