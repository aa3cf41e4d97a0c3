import type { FamilyServer } from '../../../src/sim/family/server.js';

/**
 * A family server drawn by hand for a targeted test: a 20 req/s token bucket of burst 5 on
 * 100 ± 50 ms pages answering 429 with `Retry-After: 0`, the client allowed 64 in flight, 180 s
 * — `overrides` on top.
 */
export const targetedServer = (overrides: Partial<FamilyServer>): FamilyServer => ({
  seed: 9,
  index: 0,
  kind: 'token-bucket',
  rate: [{ fromMs: 0, rate: 20 }],
  windowMs: 1000,
  burst: 5,
  slots: 0,
  quota: { headers: 'x-ratelimit', resetForm: 'delta' },
  latencyMs: 100,
  jitterMs: 50,
  refusalStatus: 429,
  retryAfter: 'zero',
  retryAfterS: 1,
  dateSkewMs: 0,
  noise: 0,
  client: { maxConcurrency: 64, timeoutMs: 30_000 },
  durationMs: 180_000,
  ...overrides,
});
