import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// The behaviours of issue 9 on targeted family servers, in virtual time: when a probe comes — soon
// after a cold start or an aftermath, and no more often than a stable ceiling deserves. Where a
// bound here is looser than the target, the comment gives the target and what was measured.

const server = targetedServer;

describe('ratewise probes on targeted family servers, when (virtual time)', () => {
  it('probes at once from a ceiling a constant Retry-After left at a bound, however dear a probe is', async () => {
    // Target 95 %. A held rate refused right after a 3–4 s pause on a 1 s window is read at the grant
    // per pause (a window's worth over three or four windows) and cut to half; the budget, paying
    // 3–4 s of pause per probe out of 5 % of the time, probed from there a minute or more later:
    // 75.6 % (50 req/s, 400 ± 300 ms pages, Retry-After: 4) and 74.9 % (120 req/s, 100 ms, 3) that way;
    // 95.7 % and 96.3 % probing from the bound as soon as the pause and the hold are over, unpaid.
    // Since session 18 the 50 req/s window runs at 91.9 %: its first count's raise, refused with a
    // bound, returns to the slow start's reading, and in that phase a probe's 2 s recount reads 103
    // (51.5 req/s); a confirming probe narrows the margin over the window's 50, the held 50.26 is
    // refused with a bound, and the narrowing (not the capacity) is undone: 49.95 req/s held again.
    for (const [rate, latencyMs, jitterMs, retryAfterS, maxConcurrency] of [
      [50, 400, 300, 4, 48],
      [120, 100, 20, 3, 32],
    ] as const) {
      const window = server({
        kind: 'fixed-window',
        rate: [{ fromMs: 0, rate }],
        retryAfter: 'fixed',
        retryAfterS,
        latencyMs,
        jitterMs,
        client: { maxConcurrency, timeoutMs: 30_000 },
      });
      const { measures } = await runFamilyServer(window, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  });

  it('probes within half a minute from a cold start a small burst held to a fraction of a fast limit under a constant Retry-After', async () => {
    // Target 95 %. A GCRA or bucket of 150 or 360 req/s with a burst of 8 % refuses the slow start's
    // round trip of sends at once (a burst, not a rate); its first count reads a fraction of the
    // capacity (seed 2 #22 of the family: 108.6 of 359.1 req/s) and was billed the 3–5 s pause as
    // a probe's, so the first probe came 80–100 s later: 71.6 / 50.7 / 54.0 / 69.8 % here.
    // Billed a second at most, it comes within half a minute: 88.8 / 76.6 / 86.7 / 86.3 %.
    const runs = (
      [
        ['gcra', 150, 3],
        ['gcra', 360, 5],
        ['token-bucket', 150, 5],
        ['token-bucket', 360, 3],
      ] as const
    ).map(async ([kind, rate, retryAfterS]) => {
      const fast = server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst: Math.round(rate * 0.08),
        retryAfter: 'fixed',
        retryAfterS,
        latencyMs: 200,
        jitterMs: 20,
        client: { maxConcurrency: 181, timeoutMs: 30_000 },
        durationMs: 240_000,
      });
      return (await runFamilyServer(fast, ratewise)).measures;
    });
    for (const measures of await Promise.all(runs)) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.75);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  }, 120_000);

  it('keeps a bucket or GCRA that names no pause at the 95 % target through its probes, pausing half a second where pauses ended with it open', async () => {
    // A 108 req/s limit of burst 31 refusing with no Retry-After (the family's seed 2 #62). Each
    // probe's aftermath is refused and brings the controller's own pause; the limit refills in a
    // few sends (the real wait after those refusals: 0-110 ms at the median), but a pause of a
    // second, every few seconds, held 90.6-96.9 % (7 of 8 runs under 95 %). Half a second once
    // pauses ended with the server open: 96.9-98.0 %, refused 0.18-0.27 % (0.18-0.33 % before);
    // 97.2-98.1 %, 0.18-0.28 % with session 26's cold start beside it.
    const runs = (['token-bucket', 'gcra'] as const).flatMap((kind) =>
      [0, 1, 2, 3].map(async (index) => {
        const limit = server({
          kind,
          index,
          retryAfter: 'none',
          rate: [{ fromMs: 0, rate: 108 }],
          burst: 31,
        });
        return (await runFamilyServer(limit, ratewise)).measures;
      }),
    );
    for (const measures of await Promise.all(runs)) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  }, 300_000);

  it('probes a bursty 10 s limit soon after its cold start, where the pauses that start paid were its own choice (no Retry-After)', async () => {
    // Target 95 %. Refused with no Retry-After, the slow start's overshoot into a burst is paused
    // 1 + 2 + 4 + 8 s (doubling while refused right after each pause), and its last cut holds half
    // the capacity. Billed to the probe budget in full, those 15 s of pauses the controller chose
    // itself held the first probe back (seed 1 #70 of the family, a 312 req/s GCRA of burst 240:
    // to 101 s): 10 of these 16 runs held 84-86 %, mean 90.2 %. Billed at most their first second
    // each (the family's #70: a probe at 32 s), min 97.3 %, mean 98.6 %; refused 0.03-0.15 % both.
    // With the pause not doubled after a server that reopened, 300 req/s runs of other
    // indexes hold 94.2-94.7 % (3 of 32 run indexes 0-7; the rest 97.4-100.5 %): the bound is 93 %,
    // which the billing in full misses by 7 points.
    const runs = (['gcra', 'token-bucket'] as const).flatMap((kind) =>
      [200, 300].flatMap((rate) =>
        [0, 1, 2, 3].map(async (index) => {
          const bursty = server({
            kind,
            index,
            rate: [{ fromMs: 0, rate }],
            windowMs: 10_000,
            burst: rate * 0.8,
            retryAfter: 'none',
            latencyMs: 25,
            jitterMs: 15,
            client: { maxConcurrency: 24, timeoutMs: 30_000 },
          });
          return (await runFamilyServer(bursty, ratewise)).measures;
        }),
      ),
    );
    for (const measures of await Promise.all(runs)) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.93);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  }, 120_000);

  it('probes again soon after a refused probe’s aftermath sent the rate far below a fast window that rose, under a constant Retry-After', async () => {
    // A 1 s window rising 110 → 300 → 500 req/s, each refusal `Retry-After: 4`. The probe after the
    // last rise climbs from 107 to 820, its recount after the pause counts a window's whole grant
    // (~700), the rate it sets is refused, and so is the one the aftermath returns to (the probe's
    // reading, 504): the second return goes half way to the rate held before the probe, 297, and
    // the budget's next probe is a minute of pauses away. Served over the last 40 s: 59.6–61.3 % of
    // capacity held there (indexes 0–3); 76.8–82.2 % with the next probe owed.
    const rose = (index: number) =>
      server({
        index,
        kind: 'fixed-window',
        rate: [
          { fromMs: 0, rate: 110 },
          { fromMs: 85_000, rate: 300 },
          { fromMs: 160_000, rate: 500 },
        ],
        burst: 40,
        retryAfter: 'fixed',
        retryAfterS: 4,
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
        durationMs: 240_000,
      });
    const fromMs = 200_000;
    const runs = await Promise.all(
      [0, 1, 2, 3].map(async (index) => {
        let served = 0;
        const { measures } = await runFamilyServer(rose(index), ratewise, {
          events: (event) => {
            if (event.type === 'sample' && event.status === 200 && event.t >= fromMs) served++;
          },
        });
        return { measures, share: served / ((500 * (240_000 - fromMs)) / 1000) };
      }),
    );
    for (const { measures, share } of runs) {
      expect(share).toBeGreaterThanOrEqual(0.75);
      expect(measures.refusedAll).toBeLessThanOrEqual(0.001);
    }
  }, 120_000); // 240 s of a server at up to 500 req/s four times

  it('stops probing a stable window eagerly once probes find its ceiling where it was, whatever the cold start over-read', async () => {
    // The cold start's first grant, counted over its pause, reads 2-5x the capacity of a 200 req/s
    // window; judged fallen from it for minutes, every probe was eager (half price, its patience
    // never growing). On main a73c4d6: 90.7 / 90.1 % with 0.22 / 0.23 % refused (Retry-After: 0),
    // 90.9 / 89.5 % (an HTTP-date). A peak not read calmly nor standing 10 s comes down after two
    // probes find the ceiling fallen from it where it was: 97.9 / 97.4 / 96.1 / 95.6 %, 0.01-0.04 %.
    const window = (retryAfter: FamilyServer['retryAfter'], index: number) =>
      server({
        index,
        kind: 'fixed-window',
        rate: [{ fromMs: 0, rate: 200 }],
        burst: 100,
        latencyMs: 30,
        jitterMs: 15,
        retryAfter,
        client: { maxConcurrency: 48, timeoutMs: 30_000 },
      });
    const runs = await Promise.all(
      [window('zero', 0), window('zero', 1), window('http-date', 0), window('http-date', 1)].map(
        (s) => runFamilyServer(s, ratewise),
      ),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(measures.refused).toBeLessThanOrEqual(0.001);
    }
  }, 120_000); // 180 s of a 200 req/s server four times: ~4 s of CPU
});
