import { describe, expect, it } from 'vitest';
import { classify } from '../../../src/classify.js';
import { runAttempts } from '../../../src/client/attempts.js';
import { retryPolicy } from '../../../src/client/retry-policy.js';
import { controlSetup } from '../../../src/controller/defaults.js';
import { ScopeRegistry } from '../../../src/controller/registry.js';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { SIM_SCOPE } from '../../../src/sim/strategies/ratewise.js';
import { runWorkers, type Strategy } from '../../../src/sim/strategies/strategy.js';
import { targetedServer } from './targeted-server.js';

// Issue 9's quota target under timing noise: a published quota used to ≥ 98 % with no refusal.
// With 0-5 ms each way, requests sent at one instant (a slow start's first burst) reach the server
// in any order, and the window's first answer to come back carried the remaining of an earlier
// count with the ordinal of a later send: the difference, over the second or two before the next
// answer, read as others taking the quota — a pause to the reset at cold start (family s3 #68:
// cold 99 % → 6.9 %). Now what the reordering explains is not others' (`QuotaReorder`).

/** A quota of `rate` per window on pages of `latencyMs` ± half, a client of `slots`, for 120 s. */
const quota = (rate: number, windowMs: number, latencyMs: number, slots: number, index: number) =>
  targetedServer({
    index,
    kind: 'quota',
    rate: [{ fromMs: 0, rate }],
    windowMs,
    latencyMs,
    jitterMs: latencyMs / 2,
    quota: { headers: 'x-ratelimit', resetForm: 'epoch' },
    retryAfter: 'http-date',
    client: { maxConcurrency: slots, timeoutMs: 30_000 },
    durationMs: 120_000,
  });

/**
 * ratewise whose workers each offer their first request 3 ms after the one before: the opening
 * burst stamped over a few ms, as a real client stamps each send as it admits it (the simulator
 * otherwise sends a burst at one instant).
 */
const admittedOneByOne: Strategy = {
  name: 'ratewise',
  description: 'ratewise, the opening burst stamped 3 ms apart',
  async run(context) {
    const { clock, random, work, transport } = context;
    const registry = new ScopeRegistry({
      setup: controlSetup({ maxConcurrency: context.maxConcurrency }),
      clock,
      random,
    });
    const attempts = { registry, retry: retryPolicy(), clock, random };
    let offered = 0;
    await runWorkers(context, context.workers, async (path) => {
      if (offered < context.workers) await clock.sleep(3 * offered++);
      await runAttempts(attempts, {
        url: path,
        method: 'GET',
        scopes: SIM_SCOPE,
        send: () => transport.send({ path }),
        classify: (exchange) => classify(exchange, { now: clock.wallNow() }),
        timings: (exchange) => exchange.timings,
        signal: work.stop,
      });
    });
  },
};

/** How {@link least} runs: the strategy, its draws of the server and the noise each way, ms. */
interface Draws {
  strategy: Strategy;
  indexes: readonly number[];
  noiseMs: number;
}

/** The least cold start and steady goodput over draws of {@link quota} under timing noise (three, 0-5 ms). */
async function least(
  spec: readonly [number, number, number, number],
  { strategy, indexes, noiseMs }: Draws = { strategy: ratewise, indexes: [0, 1, 2], noiseMs: 5 },
) {
  const worst = { coldStart: Infinity, goodput: Infinity, refused: 0 };
  for (const index of indexes) {
    const server: FamilyServer = quota(...spec, index);
    const { measures } = await runFamilyServer(server, strategy, { timingNoiseMs: noiseMs });
    worst.coldStart = Math.min(worst.coldStart, measures.coldStart ?? 0);
    worst.goodput = Math.min(worst.goodput, measures.goodput ?? 0);
    worst.refused = Math.max(worst.refused, measures.refused ?? 0);
  }
  return worst;
}

describe('published quotas under timing noise', () => {
  it('uses a quota with no refusal and no pause at cold start, its first burst counted in any order', async () => {
    // Worst of three draws, 0-5 ms: 1.7 req/s in 60 s windows on 1.1 s pages, 5 slots. On main
    // 09e3f94 cold 6.9 % (a pause to the first reset), steady 98.0 %; now 98.0 % and 98.0 %.
    const worst = await least([1.7, 60_000, 1100, 5]);
    expect(worst.refused).toBe(0);
    expect(worst.coldStart).toBeGreaterThanOrEqual(0.9);
    expect(worst.goodput).toBeGreaterThanOrEqual(0.975);
  }, 60_000);

  it('does so with the first burst stamped over a few ms, as a real client sends it', async () => {
    // The same, the five first sends stamped 0, 3, 6, 9, 12 ms, 0-20 ms of noise each way: three
    // draws (of 60) in which the server counted the burst out of order. On main d09da3b only sends
    // of one instant were compared: each paused to the first reset, cold 6.9 %; now 98.0 %.
    const draws = { strategy: admittedOneByOne, indexes: [20, 28, 54], noiseMs: 20 };
    const worst = await least([1.7, 60_000, 1100, 5], draws);
    expect(worst.refused).toBe(0);
    expect(worst.coldStart).toBeGreaterThanOrEqual(0.9);
    expect(worst.goodput).toBeGreaterThanOrEqual(0.975);
  }, 60_000);
});
