import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// Issue 9's cold start on buckets and GCRAs of a small burst: the slow start is refused for a
// clump of sends the burst cannot hold while it sends well under the limit's rate, so its first
// count (what it sent in the second before) is a lower bound, not a reading. Counted whole, it was
// charged to the probe budget as a probe's reading and held for 20-30 s (family seed 3 #9: 32 of
// 94 req/s from 2 s to 28 s). Now a limit that granted the sends just after that refusal
// (`FirstRefusal`) leaves the count a lower bound, checked soon.

/** A 60 s run on a `kind` limit of `rate` req/s and `burst`, pages of `latencyMs` + `jitterMs`. */
const limit = (
  kind: FamilyServer['kind'],
  rate: number,
  burst: number,
  page: { latencyMs: number; jitterMs: number },
  retryAfter: FamilyServer['retryAfter'],
  slots: number,
) =>
  targetedServer({
    kind,
    rate: [{ fromMs: 0, rate }],
    burst,
    ...page,
    retryAfter,
    client: { maxConcurrency: slots, timeoutMs: 30_000 },
    durationMs: 60_000,
  });

/** The mean cold start and steady goodput of `server` over simulation seeds 9-11. */
async function meanMeasures(server: FamilyServer): Promise<{ cold: number; goodput: number }> {
  const runs = await Promise.all(
    [9, 10, 11].map((seed) => runFamilyServer({ ...server, seed }, ratewise)),
  );
  const mean = (f: (m: (typeof runs)[number]['measures']) => number | null) =>
    runs.reduce((sum, run) => sum + (f(run.measures) ?? 0), 0) / runs.length;
  return { cold: mean((m) => m.coldStart), goodput: mean((m) => m.goodput) };
}

describe('the first count of a slow start refused for a clump its limit could not hold', () => {
  it('is checked soon where the limit granted the sends just after its first refusal', async () => {
    // No Retry-After: the first refusal opens a cap on trial, which the next sends refute (or a
    // check past it ends). Before: cold 32.3 / 23.4 %, steady 92.6 / 85.6 %; now 62.6 / 50.8 %,
    // 97.9 / 94.8 % (one seed of three each is refused another way and keeps main's figures).
    const gcra = await meanMeasures(
      limit('gcra', 94, 9, { latencyMs: 350, jitterMs: 70 }, 'none', 106),
    );
    const bucket = await meanMeasures(
      limit('token-bucket', 92, 6, { latencyMs: 650, jitterMs: 170 }, 'none', 91),
    );
    expect(gcra.cold).toBeGreaterThanOrEqual(0.55);
    expect(bucket.cold).toBeGreaterThanOrEqual(0.45);
    expect(gcra.goodput).toBeGreaterThanOrEqual(0.96);
    expect(bucket.goodput).toBeGreaterThanOrEqual(0.92);
  });

  it('stays a reading on a 1 s window, whose count it is', async () => {
    // Issue 13's twin server: a 1 s window of 30 req/s on 350 +- 50 ms pages; one probe more in
    // the first 20 s would cost a pause. Cold 89.3 / 90.0 / 92.3 % on main and now.
    const window = await meanMeasures(
      limit('fixed-window', 30, 1, { latencyMs: 350, jitterMs: 50 }, 'wait', 40),
    );
    expect(window.cold).toBeGreaterThanOrEqual(0.89);
  });
});
