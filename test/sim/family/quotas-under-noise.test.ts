import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
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

/** The least cold start and steady goodput over three draws of {@link quota} under 0-5 ms of noise each way. */
async function least(spec: readonly [number, number, number, number]) {
  const worst = { coldStart: Infinity, goodput: Infinity, refused: 0 };
  for (const index of [0, 1, 2]) {
    const server: FamilyServer = quota(...spec, index);
    const { measures } = await runFamilyServer(server, ratewise, { timingNoiseMs: 5 });
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
});
