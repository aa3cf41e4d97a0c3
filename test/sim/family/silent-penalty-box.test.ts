import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import { FIELD_DEFAULTS } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

/**
 * A penalty box that says nothing: a sliding window counter of `perS` a `windowMs` window whose
 * first refusal blocks the client for `blockMs` (every request refused), no `Retry-After`, for
 * `durationMs` (four minutes unless said).
 */
const silentPenaltyBox = (
  perS: number,
  windowMs: number,
  blockMs: number,
  latencyMs: number,
  slots: number,
  durationMs = 240_000,
) =>
  targetedServer({
    index: 2,
    kind: 'penalty-box',
    rate: [{ fromMs: 0, rate: perS }],
    windowMs,
    burst: 0,
    field: { ...FIELD_DEFAULTS, blockMs },
    retryAfter: 'none',
    latencyMs,
    jitterMs: latencyMs / 2,
    client: { maxConcurrency: slots, timeoutMs: 30_000 },
    durationMs,
  });

describe('ratewise on a penalty box without Retry-After (virtual time)', () => {
  it('is not blocked again and again at the rate that tripped the block', async () => {
    // Each block is waited out in the controller's own pauses; main 484868c then resumed at the
    // rate that tripped it (its refusals judged the closure's: a pause that found the server still
    // closed says nothing about the rate) and was blocked again, for most of the run: steady
    // goodput 3.8, 3.3, 15.4 %, refused 23.2, 7.4, 4.0 % below. A long closure now lowers the rate
    // that tripped it and holds probes as long again: 52.1, 29.7, 35.6 %, refused 0.8, 0.7, 1.1 %.
    for (const [perS, windowMs, blockMs, latencyMs, slots] of [
      [8, 1000, 30_000, 50, 2],
      [40, 1000, 30_000, 100, 8],
      [30, 10_000, 60_000, 200, 13],
    ] as const) {
      const server = silentPenaltyBox(perS, windowMs, blockMs, latencyMs, slots);
      const { measures } = await runFamilyServer(server, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.25);
      expect(measures.refused).toBeLessThanOrEqual(0.03);
    }
  }, 30_000);

  it('pays for a probe that tripped a block with the block: the next one waits', async () => {
    // A probe above the rate held after a block climbs past the limit before the window that
    // counts it refuses, and the box blocks again; the closure's pauses found the server closed
    // and billed the probe budget nothing, so the next probe came as soon as the hold after the
    // closure was over: a block every few minutes for as long as the crawl ran. Sixteen minutes,
    // steady goodput over the second half: main 3fb7286 30.4, 56.9 %; now 41.5, 74.9 %.
    for (const [perS, windowMs, blockMs, latencyMs, slots, least] of [
      [81.7, 10_000, 30_000, 142, 33, 0.37],
      [21.1, 60_000, 60_000, 948, 34, 0.65],
    ] as const) {
      const server = silentPenaltyBox(perS, windowMs, blockMs, latencyMs, slots, 960_000);
      const { measures } = await runFamilyServer(server, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(least);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  }, 60_000);
});
