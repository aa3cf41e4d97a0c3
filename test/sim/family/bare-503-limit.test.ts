import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

describe('a limit that refuses with bare 503s (no Retry-After) at a held rate', () => {
  it('obeys it when an unseen consumer takes a few percent of it', async () => {
    // nginx's limit_req answers a bare 503. A consumer taking 4 % of a 40 req/s GCRA leaves the
    // learned rate refused about one time in twenty-five: under the twentieth of the outcomes
    // that alone was tried as a refusal, passed on as noise to the end (2.0 % refused before;
    // 0.7 % measured).
    const shared = targetedServer({
      kind: 'gcra',
      rate: [{ fromMs: 0, rate: 40 }],
      burst: 20,
      refusalStatus: 503,
      retryAfter: 'none',
      client: { maxConcurrency: 16, timeoutMs: 30_000 },
      background: { share: 0.04, active: [{ fromMs: 60_000, toMs: 180_000 }] },
    });
    const { measures } = await runFamilyServer(shared, ratewise);
    expect(measures.refused).toBeLessThanOrEqual(0.012);
    expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
  });
});
