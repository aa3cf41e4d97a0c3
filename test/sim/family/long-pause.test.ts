import { describe, expect, it } from 'vitest';
import { familyModel } from '../../../src/sim/family/build.js';
import { Outcome } from '../../../src/sim/family/family-model.js';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import { FIELD_DEFAULTS } from '../../../src/sim/family/server.js';
import { simulateModel } from '../../../src/sim/simulate.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

/**
 * A penalty box of 2 req/s (a 1 s sliding window counter) that blocks a client going over for
 * 150 s and says so in its Retry-After: longer than the 120 s a ratewise request waits at most,
 * so the client gives up on the request (RetryAfterTooLongError, then ScopePausedError for the
 * others) — before 81aa68b that ended the simulated run with the error.
 */
const box = targetedServer({
  kind: 'penalty-box',
  rate: [{ fromMs: 0, rate: 2 }],
  windowMs: 1000,
  burst: 0,
  field: { ...FIELD_DEFAULTS, blockMs: 150_000 },
  retryAfter: 'wait',
  latencyMs: 100,
  jitterMs: 20,
  client: { maxConcurrency: 16, timeoutMs: 30_000 },
  durationMs: 200_000,
});

describe('ratewise told to wait longer than a request waits (virtual time)', () => {
  it('runs a 200 s penalty-box run with a 150 s block to the end', async () => {
    const run = await runFamilyServer(box, ratewise, { durationMs: 200_000 });
    expect(run.strategy).toBe('ratewise');
    expect(run.hotLoopAt).toBeUndefined();
    expect(run.measures.ok).toBeGreaterThan(0);
    expect(run.measures.refusedAll).toBeGreaterThan(0);
  });

  it('goes over once, is blocked, waits the block out and is served again after it', async () => {
    const model = familyModel(box);
    const { maxConcurrency, timeoutMs } = box.client;
    await simulateModel(
      model,
      { workload: { workers: maxConcurrency, durationMs: 200_000 }, maxConcurrency, timeoutMs },
      ratewise,
      { seed: box.seed * 100_000 + box.index },
    );
    const { at, outcome } = model.record;
    const firstRefused = outcome.indexOf(Outcome.refused);
    expect(firstRefused).toBeGreaterThanOrEqual(0);
    const blockEnds = (at[firstRefused] as number) + 150_000;
    expect(blockEnds).toBeLessThan(200_000);
    const servedAfter = at.filter((t, i) => t >= blockEnds && outcome[i] === Outcome.ok).length;
    // Served again after the block (2/s for up to ~50 s).
    expect(servedAfter).toBeGreaterThan(0);
    // It waited the block out rather than hammering the box: at most one try per worker inside it
    // (on 81aa68b, none: the workers sleep the whole Retry-After).
    const inBlock = at.filter((t) => t > (at[firstRefused] as number) && t < blockEnds).length;
    expect(inBlock).toBeLessThanOrEqual(maxConcurrency);
  });
});
