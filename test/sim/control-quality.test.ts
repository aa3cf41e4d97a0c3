import { describe, expect, it } from 'vitest';
import type { ControlEvent } from '../../src/events/event.js';
import { findScenario, type Scenario } from '../../src/sim/scenarios.js';
import { simulate } from '../../src/sim/simulate.js';
import {
  fixedJitter,
  fixedSleep,
  ratewise,
  type Strategy,
} from '../../src/sim/strategies/index.js';
import type { RunSummary } from '../../src/sim/summary.js';

// The claims of `ratewise bench` (issue: simulator and strategy benchmark), asserted in
// virtual time on three seeds each. Loopback runs of the same scenarios live in the benchmark.
const SEEDS = [1, 2, 3];

const scenario = (name: string): Scenario => {
  const found = findScenario(name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

async function runs(name: string, strategy: Strategy): Promise<RunSummary[]> {
  return Promise.all(
    SEEDS.map(async (seed) => (await simulate(scenario(name), strategy, { seed })).summary),
  );
}

const worst = (values: number[]) => Math.min(...values);
const most = (values: number[]) => Math.max(...values);

describe('ratewise control quality in simulation (40 workers of demand)', () => {
  it('the demo server (reference-000): >= 95 % of capacity in steady state, <= 1 % rejected', async () => {
    const results = await runs('reference-000', ratewise);
    expect(worst(results.map((r) => r.capacityShare ?? 0))).toBeGreaterThanOrEqual(0.95);
    expect(most(results.map((r) => r.rejectedShare ?? 1))).toBeLessThanOrEqual(0.01);
  });

  it('the demo server (reference-000), a 25 s run from a cold start: >= 90 % of its 750 in ok', async () => {
    // The crawl criterion (issue: client and CLI), learning phase included.
    const oks = await Promise.all(
      SEEDS.map(async (seed) => {
        const { log } = await simulate(scenario('reference-000'), ratewise, {
          seed,
          durationMs: 25_000,
        });
        return log.status.filter((status) => status >= 200 && status < 300).length;
      }),
    );
    expect(worst(oks)).toBeGreaterThanOrEqual(675);
  });

  it('the demo server from a cold start: a cap trial refuted after its pause bounds the first count by the grant since', async () => {
    // On seeds 1, 3 and 5 the first refusal begins a cap trial that the burst after its pause
    // refutes, having been granted the window's 30. The first count, a second straddling the
    // window's edge, read 41-44 and was held until refused again (three refusals in 25 s on main
    // ccc999a); bounded by that grant, it holds 29.1 req/s from the first pause's end.
    const refusals = await Promise.all(
      [1, 3, 5].map(async (seed) => {
        const { log } = await simulate(scenario('reference-000'), ratewise, {
          seed,
          durationMs: 25_000,
        });
        return log.status.filter((status) => status === 429).length;
      }),
    );
    expect(most(refusals)).toBeLessThanOrEqual(2);
  });

  it.each(['sliding-window', 'token-bucket'])(
    '%s server: >= 90 % of capacity, <= 2 % rejected',
    async (name) => {
      const results = await runs(name, ratewise);
      expect(worst(results.map((r) => r.capacityShare ?? 0))).toBeGreaterThanOrEqual(0.9);
      expect(most(results.map((r) => r.rejectedShare ?? 1))).toBeLessThanOrEqual(0.02);
    },
  );

  it('capacity moving 30 -> 10 -> 40 req/s: follows it with <= 2 % rejected', async () => {
    const results = await runs('changing-capacity', ratewise);
    expect(worst(results.map((r) => r.capacityShare ?? 0))).toBeGreaterThanOrEqual(0.9);
    expect(most(results.map((r) => r.rejectedShare ?? 1))).toBeLessThanOrEqual(0.02);
  });

  it('published quota headers: not a single 429', async () => {
    const results = await runs('quota-headers', ratewise);
    expect(results.map((r) => r.rejected)).toEqual([0, 0, 0]);
    expect(worst(results.map((r) => r.capacityShare ?? 0))).toBeGreaterThanOrEqual(0.9);
  });

  it('cumulative pacing ramp: does not collapse against a fixed-concurrency client at the same ceiling', async () => {
    const [mine, fixed] = await Promise.all([runs('ramp', ratewise), runs('ramp', fixedJitter)]);
    for (const [i, run] of mine.entries()) {
      const baseline = fixed[i] as RunSummary;
      expect(run.batchS).not.toBeNull();
      expect(run.batchS as number).toBeLessThanOrEqual(1.25 * (baseline.batchS as number));
      expect(run.finalQuarterRate as number).toBeGreaterThanOrEqual(
        0.8 * (baseline.finalQuarterRate as number),
      );
      expect(run.maxMs).toBeLessThanOrEqual(5000);
    }
  });

  it('decaying ramp: finds the knee — more goodput than fixed concurrency and than a fixed 0.5 s sleep', async () => {
    const [mine, fixed, sleepy] = await Promise.all([
      runs('decaying-ramp', ratewise),
      runs('decaying-ramp', fixedJitter),
      runs('decaying-ramp', fixedSleep(500)),
    ]);
    for (const [i, run] of mine.entries()) {
      expect(run.okPerS).toBeGreaterThan((fixed[i] as RunSummary).okPerS);
      expect(run.okPerS).toBeGreaterThan((sleepy[i] as RunSummary).okPerS);
    }
  });

  it('healthy 200 ms server: the ceiling of 32 in flight is reached within 2 s', async () => {
    const results = await runs('healthy', ratewise);
    for (const run of results) {
      expect(run.timeToMaxS).not.toBeNull();
      expect(run.timeToMaxS as number).toBeLessThanOrEqual(2);
    }
  });
});

describe('soft throttling in simulation', () => {
  it('escalating target: the latency alarm cuts the rate before the first 429 (here, none comes)', async () => {
    for (const seed of SEEDS) {
      const events: ControlEvent[] = [];
      await simulate(scenario('escalating'), ratewise, {
        seed,
        events: (event) => events.push(event),
      });
      const firstAlarm = events.find(
        (e) => e.type === 'alarm' && e.reason.includes('slowing down'),
      );
      const first429 = events.find((e) => e.type === 'sample' && e.status === 429);
      expect(firstAlarm).toBeDefined();
      expect(firstAlarm?.rate).not.toBeNull();
      expect(first429 === undefined || (firstAlarm as ControlEvent).t < first429.t).toBe(true);
    }
  });

  it('healthy noisy target: no latency alarm at all', async () => {
    const events: ControlEvent[] = [];
    await simulate(scenario('healthy'), ratewise, {
      seed: 1,
      events: (event) => events.push(event),
    });
    expect(events.filter((e) => e.type === 'alarm')).toEqual([]);
  });
});
