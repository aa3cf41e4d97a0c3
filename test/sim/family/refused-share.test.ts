import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewiseStrategy } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// The top-level `refusedShare` option is the budget both the rate's and the concurrency's probes
// spend: set once, it moves how often each looks for more capacity, on real family servers in
// virtual time.

/** A stable 40 req/s bucket of burst 5, 240 s, `overrides` on top. */
const stable = (overrides: Partial<FamilyServer>): FamilyServer =>
  targetedServer({ seed: 26, rate: [{ fromMs: 0, rate: 40 }], durationMs: 240_000, ...overrides });

/** The steady refused share with ratewise's defaults and `refusedShare` set at the top level. */
async function refusedWith(server: FamilyServer, refusedShare?: number): Promise<number> {
  const control = refusedShare === undefined ? {} : { refusedShare };
  const run = await runFamilyServer(server, ratewiseStrategy(control));
  return run.measures.refused ?? Number.NaN;
}

describe('refusedShare, the probing budget', () => {
  it("spends more refusals on a rate limit's probes as it grows, and none at 0", async () => {
    const bucket = stable({});
    const none = await refusedWith(bucket, 0);
    const polite = await refusedWith(bucket, 0.0025);
    const standard = await refusedWith(bucket);
    const eager = await refusedWith(bucket, 0.04);
    expect(none).toBe(0);
    expect(polite).toBeGreaterThan(0);
    expect(polite).toBeLessThan(standard);
    expect(standard).toBeLessThan(eager);
  });

  it("reaches the concurrency's probes too: a cap is never probed past at 0", async () => {
    const cap = stable({
      kind: 'concurrency-cap',
      slots: 8,
      rate: [{ fromMs: 0, rate: (8 * 1000) / 125 }],
      retryAfter: 'none',
    });
    const none = await refusedWith(cap, 0);
    const standard = await refusedWith(cap);
    expect(none).toBe(0);
    expect(standard).toBeGreaterThan(0);
  });
});
