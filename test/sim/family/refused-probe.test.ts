import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// The behaviours of issue 9 on targeted family servers, in virtual time: what a refused probe
// leaves — the pause it needs, the rate it resumes at, the margin below what it read. Where a
// bound here is looser than the target, the comment gives the target and what was measured.

const server = targetedServer;

/** Ratewise's measures over 240 s on a burst-1 limit of `kind` granting `rate` requests/s to 2 slots, with the pages and hints of `overrides`. */
async function slowLimitMeasures(
  kind: FamilyServer['kind'],
  rate: number,
  overrides: Partial<FamilyServer>,
) {
  const limit = server({
    kind,
    rate: [{ fromMs: 0, rate }],
    burst: 1,
    client: { maxConcurrency: 2, timeoutMs: 30_000 },
    durationMs: 240_000,
    ...overrides,
  });
  return (await runFamilyServer(limit, ratewise)).measures;
}

describe('ratewise after a refused probe on targeted family servers (virtual time)', () => {
  it('pauses after a free probe where the limit needs it: a spent fixed window, a burst-1 bucket not yet refilled', async () => {
    // Target 95 %. Unpaused after a refused probe, the next sends met the window the probe spent
    // (100 req/s, 1 s window, Retry-After: 0) or the bucket before it refilled (1.5 req/s, burst
    // 1), and their refusals cut the rate held (by up to half): 90.1 % and 67.6 %. Taken as the
    // probe's (no cut, the pause its refusal would have brought): 97.6 % and 97.5 %, as on main.
    const window = server({
      kind: 'fixed-window',
      rate: [{ fromMs: 0, rate: 100 }],
      burst: 1,
      latencyMs: 150,
      jitterMs: 100,
      client: { maxConcurrency: 48, timeoutMs: 30_000 },
      durationMs: 240_000,
    });
    const bucket = server({
      rate: [{ fromMs: 0, rate: 1.5 }],
      burst: 1,
      jitterMs: 100,
      client: { maxConcurrency: 2, timeoutMs: 30_000 },
      durationMs: 240_000,
    });
    for (const limit of [window, bucket]) {
      const { measures } = await runFamilyServer(limit, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  }, 60_000); // 240 s of a 100 req/s server: ~3 s of CPU

  it('holds a slow 1 s log after a free probe at the rate held before it, not at a guess above the capacity', async () => {
    // Target 95 %. A 3.4 req/s log of a 1 s window, no Retry-After, 2 slots: a refused probe that
    // brings no pause held a probe step below the rate refused until its recount, still over the
    // capacity; the log, with no pause to empty it, refused a send a second later, after the
    // recount, as the rate held (a cut, a pause): 80.8-81.0 % with the free probe alone (main,
    // whose probe paused: 94.3-96.3 %). Holding the rate held before the probe: 97.0-97.1 %.
    for (const index of [0, 1, 2]) {
      const log = server({
        index,
        kind: 'sliding-log',
        rate: [{ fromMs: 0, rate: 3.4 }],
        burst: 1,
        retryAfter: 'none',
        latencyMs: 64,
        jitterMs: 39,
        client: { maxConcurrency: 2, timeoutMs: 30_000 },
        durationMs: 240_000,
      });
      const { measures } = await runFamilyServer(log, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  });

  it('keeps most of a slow token bucket of burst 1: a refused probe resumes below the rate refused', async () => {
    // Target 95 %. Resumed at a reading just under the probe's refused rate before its recount was
    // in, the next send was refused too and cut the rate by half: 55.2 % (8 req/s, 8 slots) and
    // 52.4 % (3 req/s, 4 slots, no Retry-After) before; 82.1 % and 82.7 % holding a probe step below.
    for (const [rate, retryAfter, latencyMs, maxConcurrency] of [
      [8, 'wait', 100, 8],
      [3, 'none', 300, 4],
    ] as const) {
      const bucket = server({
        rate: [{ fromMs: 0, rate }],
        burst: 1,
        retryAfter,
        latencyMs,
        jitterMs: latencyMs / 2,
        client: { maxConcurrency, timeoutMs: 30_000 },
      });
      const { measures } = await runFamilyServer(bucket, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.75);
      expect(measures.refused).toBeLessThanOrEqual(0.012);
    }
  });

  it('holds slow burst-1 limits near capacity: a refused probe leaves a refusal-free rate where it was', async () => {
    // Target 95 %. At a request or two a second a refused probe's recount counts four or five
    // sends over the probe's climb and reads below the rate held before it; the floor was one
    // margin under the ceiling, so each probe took a margin off a rate that had drawn no refusal
    // (seed 1 #153, a log of one request a second: held 0.93 -> 0.70 req/s over six probes).
    // Measured (240 s, 2 slots): 82.9 and 82.9 % before, 88.1 and 91.4 % with that rate kept.
    for (const [kind, rate, retryAfter, latencyMs] of [
      ['token-bucket', 1.2, 'none', 300],
      ['sliding-log', 1.5, 'zero', 100],
    ] as const) {
      const jitterMs = kind === 'sliding-log' ? latencyMs : latencyMs / 2;
      const measures = await slowLimitMeasures(kind, rate, { retryAfter, latencyMs, jitterMs });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.86);
      expect(measures.refused).toBeLessThanOrEqual(0.035);
    }
  });

  it('holds slow limits near capacity after a cut at the held rate: a rate held refusal-free since is kept by the next probe', async () => {
    // Target 95 %. A 3 s pause on each refusal, 2 slots on 0.4 s pages: the cold start's refusal
    // at the held rate halves it (the reading after a pause is a send or two), and that rate then
    // holds refusal-free for a minute. A probe after such a cut counted as not proven: its recount
    // fell to a margin under the ceiling, the rate held after it was refused as the bucket
    // refilled, and that cut halved it again (1.1 req/s: 0.91 -> 0.89 -> 0.43 req/s). Held 10 s
    // since the cut, the rate is proven as one held since a refused probe. Measured (240 s)
    // steady 57.6 / 62.5 / 83.5 %, refused 5.7 / 1.9 / 0.7 % before; 79.2 / 75.6 / 88.1 %,
    // 2.1 / 1.2 / 0.3 % after.
    for (const [kind, rate, floor] of [
      ['token-bucket', 1.1, 0.74],
      ['token-bucket', 1.6, 0.72],
      ['fixed-window', 4.5, 0.86],
    ] as const) {
      const measures = await slowLimitMeasures(kind, rate, {
        latencyMs: 400,
        jitterMs: 200,
        retryAfter: 'fixed',
        retryAfterS: 3,
      });
      expect(measures.goodput).toBeGreaterThanOrEqual(floor);
      expect(measures.refused).toBeLessThanOrEqual(0.025);
    }
  });

  it('reads a slow burst-1 limit from the spacing its refused probe was granted, and backs off where a spacing read a burst', async () => {
    // Target 95 %. A refused probe's recount counts the accepted sends of its climb: at a few
    // requests a second they read the climb, not the capacity, under the refusal-free rate kept
    // before it, and the ceiling never rose (seed 2 #53, #94, seed 1 #60 of the family held 82, 83,
    // 78 %). Measured (240 s, 2 slots, 100 ± 50 ms pages): 83.0 / 79.3 / 84.0 % before, 93.8 /
    // 92.6 / 90.9 % with the ceiling raised to the fastest spacing granted, on trial. A GCRA
    // (one request of tolerance) grants closer spacing than it sustains: 95.4 % and 0.77 % refused
    // before, 95.2 % and 0.93 % now (one refusal refutes the raise).
    for (const [rate, retryAfter] of [
      [2.6, 'wait'],
      [4.5, 'none'],
      [5.9, 'http-date'],
    ] as const) {
      const measures = await slowLimitMeasures('token-bucket', rate, { retryAfter, jitterMs: 50 });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures.refused).toBeLessThanOrEqual(0.008);
    }
    const gcra = await slowLimitMeasures('gcra', 3.2, { retryAfter: 'wait', jitterMs: 50 });
    expect(gcra.goodput).toBeGreaterThanOrEqual(0.93);
    expect(gcra.refused).toBeLessThanOrEqual(0.011);
  });

  it('raises a slow limit’s ceiling to the spacing its refused probe was granted, even where the probe confirmed it', async () => {
    // Target 95 %. At a request or two a second a probe steps up every send: refused at its second
    // step (+10 %) after one send at its first, its reading is within the 5 % that confirms the
    // ceiling, which it then kept — a cold start's under-read for good (seed 1 #176, #24, seed 2
    // #127, #174 of the family held 86–90 %) — and a span of one send had no spacing to read.
    // Measured (240 s, 2 slots, 100 ± 50 ms pages): 90.5, 90.8, 89.8, 85.7 % before (mean 89.2 %),
    // 93.7, 93.0, 92.1, 88.1 % (mean 91.7 %) with the spacing into the span read and a confirmed
    // probe's spacing read; refused 0.87, 1.04, 1.05, 1.64 % -> 0.84, 1.01, 1.02, 1.60 %.
    const goodputs: number[] = [];
    for (const [kind, rate, retryAfter] of [
      ['token-bucket', 1.2, 'none'],
      ['token-bucket', 1.5, 'none'],
      ['token-bucket', 1.5, 'wait'],
      ['fixed-window', 1.2, 'fixed'],
    ] as const) {
      const measures = await slowLimitMeasures(kind, rate, { retryAfter, retryAfterS: 3 });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.875);
      expect(measures.refused).toBeLessThanOrEqual(0.017);
      goodputs.push(measures.goodput as number);
    }
    expect(goodputs.reduce((sum, g) => sum + g, 0) / goodputs.length).toBeGreaterThanOrEqual(0.915);
  });

  it('spends on probing a slow scope what a probe costs there: a fallen ceiling found where it was twice is not probed eagerly', async () => {
    // Target: 1 % refused. A slow start's first reading, well above what a one- or two-request-a-
    // second limit keeps granting, made the held ceiling a "fallen" one for minutes: probed at half
    // price with no patience, every 25 s at the earning floor, each probe one refusal — 2.5-3 % of
    // the scope's requests (seed 1 #153, #176, #123, #162 of the family). Measured (240 s, 2 slots,
    // 100 ± 100 ms pages, burst 1), refused: 3.03, 1.13, 1.56, 0.74 % before (mean 1.62 %);
    // 1.52, 0.45, 1.17, 0.24 % then (mean 0.85 %), goodput 91.4-96.2 -> 92.9-97.1 %. Session 14's
    // spacing trial (the test above) pays one refusal where a GCRA or a window grants closer spacing
    // than it sustains: 1.52, 0.60, 1.56, 0.49 % (mean 1.04 %), the bucket 84.2 -> 95.0 %.
    const refused: number[] = [];
    for (const [kind, rate, retryAfter] of [
      ['sliding-log', 1.1, 'zero'],
      ['token-bucket', 2.5, 'none'],
      ['gcra', 2.5, 'none'],
      ['fixed-window', 2.5, 'none'],
    ] as const) {
      const measures = await slowLimitMeasures(kind, rate, { retryAfter, jitterMs: 100 });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.8);
      expect(measures.refused).toBeLessThanOrEqual(0.02);
      refused.push(measures.refused as number);
    }
    expect(refused.reduce((sum, r) => sum + r, 0) / refused.length).toBeLessThanOrEqual(0.011);
  });

  it('keeps most of a 1 s fixed window that answers every refusal with the same 2 s pause', async () => {
    // Target 95 %. A probe's recount over-reads a fixed window (a span of a window or two catches
    // one window's whole grant), the held rate is refused right after the pause, and the grant
    // since the pause, per a pause twice the window, read as half: a cut by half, held until the
    // next probe. 57.0 % (60 req/s) and 55.4 % (30 req/s) that way; 70.9 % and 82.8 % halving
    // the gap to the rate held before the probe instead.
    for (const [rate, latencyMs, maxConcurrency] of [
      [60, 100, 32],
      [30, 50, 16],
    ] as const) {
      const window = server({
        kind: 'fixed-window',
        rate: [{ fromMs: 0, rate }],
        retryAfter: 'fixed',
        retryAfterS: 2,
        latencyMs,
        jitterMs: latencyMs / 5,
        client: { maxConcurrency, timeoutMs: 30_000 },
        durationMs: 120_000,
      });
      const { measures } = await runFamilyServer(window, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.68);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  });

  it('reads a fast 1 s window or log refused in its first second, each refusal a long pause, over that whole second', async () => {
    // Target: the cold start's 85 %. Refused 0.3-0.6 s into the slow start, the first count read the
    // grant over the time sending took (two or three times a 1 s limit's count), then raised it on
    // the first success after the pause, and each refusal since paid its 2-3 s again: main aedd52d
    // cold 39.4-57.4 %. Read over the whole second, from the sends' answers in the pause: 84.6-90.8 %.
    for (const kind of ['fixed-window', 'sliding-log'] as const) {
      for (const [rate, latencyMs, retryAfterS] of [
        [400, 50, 3],
        [200, 40, 2],
      ] as const) {
        const limit = server({
          kind,
          rate: [{ fromMs: 0, rate }],
          retryAfter: 'fixed',
          retryAfterS,
          latencyMs,
          jitterMs: latencyMs / 2,
          durationMs: 60_000,
        });
        const { measures } = await runFamilyServer(limit, ratewise);
        expect(measures.coldStart).toBeGreaterThanOrEqual(0.8);
        expect(measures.goodput).toBeGreaterThanOrEqual(0.85);
        expect(measures.refused).toBeLessThanOrEqual(0.005);
      }
    }
  });

  it('returns a refused first count to the slow start’s reading where its refusal, after a pause longer than the window, reads only a bound', async () => {
    // Target 95 %. The first count, a second of slow start, straddles a 1 s window's edge (45 for
    // 30); its hold is refused as sending resumes, and the grant per the HTTP-date's whole-second
    // pause reads half: main ccc999a cut to half and probed up from there (87.0 / 90.4 / 65.1 /
    // 88.8 / 89.4 %). The raise on trial goes back to where it started: 95.6 / 94.7 / 91.9 / 94.7 /
    // 94.7 %.
    for (const index of [2, 3, 4, 5, 6]) {
      const window = server({
        index,
        kind: 'fixed-window',
        rate: [{ fromMs: 0, rate: 30 }],
        retryAfter: 'http-date',
        latencyMs: 300,
        jitterMs: 100,
        client: { maxConcurrency: 40, timeoutMs: 30_000 },
        durationMs: 120_000,
      });
      const { measures } = await runFamilyServer(window, ratewise);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  });

  it('returns to what a refused probe read once its recount is refused after the pause, on fast limits with a constant Retry-After', async () => {
    // Target 95 %. A 1 s span ending at a probe's refused send counts one window's whole grant and
    // part of the one before: the recount over-reads a fast window or log, is refused as sending
    // resumes after the 3 s pause, and the second refusal halved the gap to the rate held before
    // the probe (often a bound the cold start left). 79.9 / 74.6 % (window, indexes 0, 1) and
    // 87.3 / 77.8 % (log) on main d7789fb; 86.1 / 84.8 / 89.5 / 89.0 % back at the rate the probe's
    // refusal held, when that is higher.
    const limit = (kind: FamilyServer['kind'], index: number) =>
      server({
        index,
        kind,
        rate: [{ fromMs: 0, rate: 400 }],
        burst: 40,
        latencyMs: 50,
        jitterMs: 10,
        retryAfter: 'fixed',
        retryAfterS: 3,
      });
    const runs = await Promise.all(
      [
        limit('fixed-window', 0),
        limit('fixed-window', 1),
        limit('sliding-log', 0),
        limit('sliding-log', 1),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    const goodputs = runs.map(({ measures }) => measures.goodput as number);
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.83);
      expect(measures.refused).toBeLessThanOrEqual(0.001);
    }
    expect(goodputs.reduce((sum, g) => sum + g, 0) / goodputs.length).toBeGreaterThanOrEqual(0.86);
  }, 120_000); // 180 s of a 400 req/s server four times: ~8 s of CPU

  it('widens the margin when the rate a refused probe read is refused again, held, on a slow GCRA of small burst', async () => {
    // A 5.5 req/s GCRA of burst 2, two in flight, Retry-After the real wait or none. Each probe
    // starts after a pause that refilled the burst, reads it on top of the rate, and the rate held
    // a margin under that reading is refused seconds later. That refusal reads the whole rate held
    // (every send since the pause granted), which compared with the reading is a margin below it:
    // from a margin of 5 % on it never read as "the same ceiling", so the margin stopped widening
    // and every probe's aftermath was refused again. Refused 1.40-2.11 % (mean 1.82 %) over
    // indexes 0-3 of both; widened at the first such refusal of each probe, 1.01-1.79 % (mean
    // 1.34 %), goodput 92.5-96.4 % (93.2-95.5 % before).
    const runs = await Promise.all(
      (['wait', 'none'] as const).flatMap((retryAfter) =>
        [0, 1, 2, 3].map((index) =>
          runFamilyServer(
            server({
              index,
              kind: 'gcra',
              rate: [{ fromMs: 0, rate: 5.5 }],
              burst: 2,
              retryAfter,
              client: { maxConcurrency: 2, timeoutMs: 30_000 },
            }),
            ratewise,
          ),
        ),
      ),
    );
    const mean = (of: (m: (typeof runs)[number]['measures']) => number | null) =>
      runs.reduce((sum, { measures }) => sum + (of(measures) ?? 0), 0) / runs.length;
    expect(mean((m) => m.refused)).toBeLessThanOrEqual(0.015);
    expect(mean((m) => m.goodput)).toBeGreaterThanOrEqual(0.93);
  }, 120_000);
});
