import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { ScopeController } from '../../src/controller/scope-controller.js';
import { EventRecorder } from '../../src/events/recorder.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { VirtualClock } from '../../src/virtual-clock.js';

const ok: Signal = { kind: 'ok', reason: '200', status: 200 };
const throttled = (retryAfterMs?: number): Signal => ({
  kind: 'throttled',
  reason: '429',
  status: 429,
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

function setup(limit = 2, extra = {}) {
  const clock = new VirtualClock();
  const recorder = new EventRecorder();
  const controller = new ScopeController('host:test', {
    clock,
    random: seededRandom(1),
    limit: new AimdLimit({ initialLimit: limit, max: 8, slowStartThreshold: 0 }),
    rate: new AdaptiveRate(),
    events: recorder.sink,
    ...extra,
  });
  return { clock, controller, recorder };
}

describe('ScopeController', () => {
  it('admits up to the concurrency limit and hands the freed slot to the next caller', async () => {
    const { controller } = setup(2);
    const a = await controller.admit();
    await controller.admit();
    expect(controller.tryAdmit()).toBeUndefined();
    let third = false;
    const waiting = controller.admit().then(() => {
      third = true;
    });
    expect(controller.queued).toBe(1);
    a.report(ok);
    await waiting;
    expect(third).toBe(true);
    expect(controller.inflight).toBe(2);
  });

  it('emits a sample event per outcome with the numbers after the decision', async () => {
    const { clock, controller, recorder } = setup(2);
    const permit = await controller.admit();
    await clock.advance(120);
    permit.report(ok);
    const [sample] = recorder.filter('sample');
    expect(sample).toMatchObject({
      scope: 'host:test',
      signal: 'ok',
      status: 200,
      rttMs: 120,
      inflight: 0,
      limit: 2,
    });
  });

  it('pauses the whole scope on Retry-After and learns a rate once per burst', async () => {
    const { clock, controller, recorder } = setup(4);
    const permits = await Promise.all([1, 2, 3, 4].map(() => controller.admit()));
    await clock.advance(50);
    for (const p of permits) p.report(throttled(1000));
    // Nothing was accepted yet: a refusal of the rate, not of a concurrency the server turned down.
    expect(controller.limit).toBe(4);
    expect(controller.rate).toBeLessThan(Infinity);
    expect(recorder.filter('rate')).toHaveLength(1);
    expect(recorder.filter('pause')).toHaveLength(1);
    expect(controller.tryAdmit()).toBeUndefined();
    const admittedAt: number[] = [];
    const next = controller.admit().then((p) => admittedAt.push(clock.now()) && p);
    await clock.advance(2000);
    await next;
    expect(admittedAt[0]).toBe(1050);
  });

  it('guesses a rate once from a burst the network reordered, and reads it again once when all is in', async () => {
    const { clock, controller, recorder } = setup(4);
    const permits = await Promise.all([1, 2, 3, 4].map(() => controller.admit()));
    await clock.advance(5);
    permits[0]?.report(throttled(1000)); // the first send reached the server last: refused
    expect(recorder.filter('rate')).toHaveLength(1); // a guess from one in flight, as in send order
    const guessed = controller.rate;
    for (const p of permits.slice(1)) {
      await clock.advance(100);
      p.report(ok);
    }
    // All in: three granted of four. One more decision, and only when the last answer is in.
    const rates = recorder.filter('rate');
    expect(rates).toHaveLength(2); // on main 3fb7286: 1, the guess held
    expect(rates[1]?.t).toBe(305);
    expect(controller.rate).toBeCloseTo(4 * guessed, 6);
  });

  it('cuts the limit to what the server took when it refuses a concurrency it never accepted', async () => {
    // A rate that does not probe in this short run (a probe's refusal is not the cap's).
    const { clock, controller } = setup(4, { rate: new AdaptiveRate({ minHoldMs: 60_000 }) });
    const first = await Promise.all([1, 2].map(() => controller.admit()));
    await clock.advance(50);
    for (const p of first) p.report(ok);
    // Sent unpaced (a slow start raises the rate and the in flight at once), the first refusal
    // above every success is a cap on trial: the limit drops to what the server took, unpaced.
    const unpaced = await Promise.all([1, 2, 3, 4].map(() => controller.admit()));
    await clock.advance(50);
    for (const p of unpaced.slice(0, 2)) p.report(ok);
    for (const p of unpaced.slice(2)) p.report(throttled(0));
    expect(controller.limit).toBe(2);
    expect(controller.rate).toBe(Infinity);
    // Refused at no more in flight than that: a rate limit's refusal — the rate paces, the limit is back.
    await clock.advance(10);
    const again = await Promise.all([1, 2].map(() => controller.admit()));
    await clock.advance(50);
    for (const p of again) p.report(throttled(0));
    expect(controller.limit).toBe(4);
    expect(controller.rate).toBeLessThan(Infinity);
    // Sent paced: four in flight refused where two were accepted — after a refuted trial, the
    // rate's until three such congestion events show the server took two (on second-long pages a
    // round trip's refusals at the held rate look like a cap of a few).
    for (let event = 0; event < 3; event++) {
      expect(controller.limit).toBe(4);
      let out = 0;
      const admitted = Promise.all(
        [1, 2, 3, 4].map(async () => {
          const permit = await controller.admit();
          out++;
          return permit;
        }),
      );
      while (out < 4) await clock.advance(10); // the pacer lets them out
      const paced = await admitted;
      await clock.advance(50);
      for (const p of paced.slice(0, 2)) p.report(ok);
      for (const p of paced.slice(2)) p.report(throttled(0));
      await clock.advance(5000); // the next event: a round trip and more later
    }
    expect(controller.limit).toBe(2);
  });

  it('a released permit frees its slot without feeding the algorithms', async () => {
    const { controller, recorder } = setup(1);
    const permit = await controller.admit();
    permit.release();
    permit.release(); // idempotent
    expect(controller.inflight).toBe(0);
    expect(recorder.events).toHaveLength(0);
    await controller.admit();
  });

  it('honours admission timeouts and aborts', async () => {
    const { clock, controller } = setup(1);
    await controller.admit();
    const timedOut = controller.admit({ timeoutMs: 100 });
    const check = expect(timedOut).rejects.toThrow(/not admitted within/);
    await clock.advance(100);
    await check;
    const abort = new AbortController();
    const aborted = controller.admit({ signal: abort.signal });
    abort.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    expect(controller.queued).toBe(0);
  });

  it('snapshots its learned state as plain JSON; a breaker appears with the first failure', async () => {
    const { clock, controller } = setup(3);
    const fresh = JSON.parse(JSON.stringify(controller.snapshot()));
    expect(fresh.limit).toMatchObject({ value: 3 });
    expect(fresh.breaker).toBeUndefined();
    const refused = await controller.admit();
    await clock.advance(10);
    refused.report(throttled()); // a refusal: the server is up, no strike
    const afterRefusal = JSON.parse(JSON.stringify(controller.snapshot()));
    expect(afterRefusal.breaker).toMatchObject({ state: 'closed', strikes: 0 });
    await clock.advance(5000);
    const failed = await controller.admit();
    await clock.advance(10);
    failed.report({ kind: 'timeout', reason: 'timeout' });
    const state = JSON.parse(JSON.stringify(controller.snapshot()));
    expect(state.breaker).toMatchObject({ state: 'closed', strikes: 1 });
    expect(typeof state.savedAt).toBe('number');
  });
});
