import { describe, expect, it } from 'vitest';
import {
  rampSteps,
  runConcurrencyRamp,
  summariseStep,
} from '../../src/analyze/concurrency-ramp.js';
import { judgeKnee, type RampStep, scalingEfficiency } from '../../src/analyze/knee.js';
import type { Probe, ProbeOutcome } from '../../src/analyze/probe.js';
import { VirtualClock } from '../../src/virtual-clock.js';

function step(
  concurrency: number,
  rps: number,
  p50: number,
  extra: Partial<RampStep> = {},
): RampStep {
  return {
    concurrency,
    requests: 100,
    elapsedMs: 1000,
    rps,
    p50,
    p95: p50 * 1.2,
    ok: 100,
    throttled: 0,
    overloaded: 0,
    errors: 0,
    phases: null,
    ...extra,
  };
}
const phases = (waitMs: number, connectMs = 1) => ({
  dnsMs: 0,
  connectMs,
  tlsMs: 0,
  waitMs,
  bodyMs: 1,
  totalMs: waitMs + connectMs + 1,
});

describe('judgeKnee', () => {
  it('names the knee where requests/s stops growing, and why: queueing in the server wait', () => {
    const steps = [
      step(1, 10, 100, { phases: phases(99) }),
      step(2, 20, 100, { phases: phases(99) }),
      step(4, 39, 102, { phases: phases(100) }),
      step(8, 41, 195, { phases: phases(193) }),
      step(16, 40, 390, { phases: phases(388) }),
    ];
    expect(scalingEfficiency(steps[2] as RampStep, steps[3] as RampStep)).toBeCloseTo(0.05, 2);
    const v = judgeKnee(steps);
    expect(v).toMatchObject({ verdict: 'knee', at: 4, best: { concurrency: 8, rps: 41 } });
    expect(v.explanation).toMatch(
      /knee at 4 .*latency grows with concurrency \(p50 ×1\.91, p95 ×1\.91\) in the server wait: requests queue at the server/,
    );
  });

  it('a flat rate with flat latency points at a cap without queueing (ours, or pacing)', () => {
    const v = judgeKnee([step(1, 10, 100), step(2, 20, 100), step(4, 21, 101)]);
    expect(v.verdict).toBe('knee');
    expect(v.explanation).toMatch(/latency held .* our CPU, event loop or pool, or a pacing limit/);
  });

  it('measures the knee against the best step so far, and sees a queue in p95 when p50 holds', () => {
    // A queue with a timeout: half the requests wait, the median does not move; a noisy step scales back.
    const steps = [
      step(1, 40, 22),
      step(2, 80, 22),
      step(4, 150, 22, { phases: phases(20) }),
      step(8, 100, 22, { p95: 300, phases: phases(21) }),
      step(16, 200, 22, { p95: 300 }),
    ];
    const v = judgeKnee(steps);
    expect(v).toMatchObject({ verdict: 'knee', at: 4 });
    expect(v.explanation).toMatch(
      /latency grows with concurrency \(p50 ×1\.00, p95 ×11\.36\): requests queue — at the server, or in our own connection pool$/,
    );
    // 16 gained 33 % over the best (4) where 300 % was ideal: still flat.
    expect(judgeKnee(steps.slice(0, 3).concat([step(16, 200, 22)]))).toMatchObject({
      verdict: 'knee',
      at: 4,
    });
  });

  it('429s/503s beat a knee, failures come next, and a clean ramp is still scaling', () => {
    const throttled = judgeKnee([
      step(1, 10, 100),
      step(2, 20, 100),
      step(4, 30, 100, { throttled: 3, overloaded: 4 }),
    ]);
    expect(throttled).toMatchObject({ verdict: 'throttled', at: 4 });
    expect(throttled.explanation).toMatch(/7 % answered 429\/503 .* stay at or below 2/);
    expect(judgeKnee([step(1, 10, 100, { errors: 30 })])).toMatchObject({
      verdict: 'failing',
      at: 1,
    });
    expect(judgeKnee([step(1, 10, 100), step(2, 19, 100), step(4, 37, 100)])).toMatchObject({
      verdict: 'scaling',
      at: null,
    });
    expect(judgeKnee([step(1, 0, 0, { ok: 0, errors: 100 })]).verdict).toBe('insufficient-data');
  });
});

describe('runConcurrencyRamp on virtual time', () => {
  /** A server with 4 workers and a FIFO queue, 100 ms per request, as a probe on the virtual clock. */
  function queueingProbe(clock: VirtualClock, workers: number, serviceMs: number): Probe {
    const busy = new Array<number>(workers).fill(0);
    return async () => {
      const now = clock.now();
      let w = 0;
      for (let i = 1; i < workers; i++) if ((busy[i] as number) < (busy[w] as number)) w = i;
      const start = Math.max(now, busy[w] as number);
      busy[w] = start + serviceMs;
      await clock.sleep(start + serviceMs - now);
      return { status: 200, signal: 'ok', latencyMs: start + serviceMs - now };
    };
  }

  async function drive<T>(clock: VirtualClock, work: Promise<T>): Promise<T> {
    let done = false;
    const result = work.finally(() => {
      done = true;
    });
    while (!done) {
      await new Promise((r) => setImmediate(r));
      if (!done) clock.advance(10);
    }
    return result;
  }

  it('ramps 1, 2, 4 … and stops two steps past the knee of a 4-worker queue', async () => {
    expect(rampSteps(64)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(rampSteps(6)).toEqual([1, 2, 4, 6]);
    const clock = new VirtualClock();
    const probe = queueingProbe(clock, 4, 100);
    const closed: number[] = [];
    const probes = { open: (c: number) => ({ probe, close: async () => void closed.push(c) }) };
    const steps = await drive(
      clock,
      runConcurrencyRamp('http://x/', probes, clock, { maxConcurrency: 64, requestsPerStep: 40 }),
    );
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2, 4, 8, 16]);
    expect(closed).toEqual([1, 2, 4, 8, 16]);
    expect(steps.map((s) => s.requests)).toEqual([40, 40, 40, 40, 64]);
    expect(steps[2]?.rps).toBeCloseTo(40, 0);
    expect(steps[3]?.rps).toBeCloseTo(40, 0);
    expect(steps[4]?.p50).toBeGreaterThanOrEqual(350);
    expect(judgeKnee(steps)).toMatchObject({ verdict: 'knee', at: 4 });
  });

  it('stops at the first throttled step', async () => {
    const clock = new VirtualClock();
    let inflight = 0;
    const probe: Probe = async () => {
      inflight++;
      const rejected = inflight > 3;
      await clock.sleep(rejected ? 5 : 50);
      inflight--;
      return rejected
        ? { status: 429, signal: 'throttled', latencyMs: 5 }
        : { status: 200, signal: 'ok', latencyMs: 50 };
    };
    const steps = await drive(
      clock,
      runConcurrencyRamp('http://x/', { open: () => ({ probe, close: async () => {} }) }, clock, {
        requestsPerStep: 20,
      }),
    );
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2, 4]);
    expect(judgeKnee(steps)).toMatchObject({ verdict: 'throttled', at: 4 });
  });

  it('an abort mid-step ends the ramp quietly with the steps finished before it', async () => {
    const clock = new VirtualClock();
    const abort = new AbortController();
    let started = 0;
    const probe: Probe = async (_url, signal) => {
      // The 50th request is in step 4 (1 and 2 send 20 each): Ctrl-C while it is in flight.
      if (++started === 50) clock.setTimer(10, () => abort.abort());
      await clock.sleep(100, signal);
      return { status: 200, signal: 'ok', latencyMs: 100 };
    };
    const closed: number[] = [];
    const seen: number[] = [];
    const probes = { open: (c: number) => ({ probe, close: async () => void closed.push(c) }) };
    const steps = await drive(
      clock,
      runConcurrencyRamp('http://x/', probes, clock, {
        requestsPerStep: 20,
        signal: abort.signal,
        onStep: (s) => seen.push(s.concurrency),
      }),
    );
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2]);
    expect(seen).toEqual([1, 2]);
    expect(closed).toEqual([1, 2, 4]); // the interrupted step's probe is closed too
    expect(steps.every((s) => s.ok === 20)).toBe(true);
  });

  it('summarises a step: answered per second, percentiles of successes, failure classes', () => {
    const outcomes: ProbeOutcome[] = [
      { signal: 'ok', latencyMs: 10, status: 200 },
      { signal: 'ok', latencyMs: 30, status: 200 },
      { signal: 'client-error', latencyMs: 5, status: 404 },
      { signal: 'throttled', latencyMs: 1, status: 429 },
      { signal: 'timeout', latencyMs: 999, error: 'timeout' },
    ];
    expect(summariseStep(2, outcomes, 500)).toMatchObject({
      requests: 5,
      rps: 6,
      ok: 2,
      throttled: 1,
      errors: 1,
      p50: 10,
      p95: 30,
      phases: null,
    });
  });

  it('validates its options', async () => {
    const clock = new VirtualClock();
    const probes = {
      open: () => ({
        probe: (async () => ({ signal: 'ok', latencyMs: 1 })) as Probe,
        close: async () => {},
      }),
    };
    await expect(runConcurrencyRamp('u', probes, clock, { maxConcurrency: 0 })).rejects.toThrow(
      /maxConcurrency.*>= 1/,
    );
    await expect(
      runConcurrencyRamp('u', probes, clock, { requestPerStep: 1 } as never),
    ).rejects.toThrow(/unknown option `requestPerStep`/);
  });
});
