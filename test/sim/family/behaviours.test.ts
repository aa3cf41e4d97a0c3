import { describe, expect, it } from 'vitest';
import { drawServer } from '../../../src/sim/family/draw.js';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { fixedJitter, ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// The behaviours of issue 9 on targeted family servers, in virtual time. Where a bound here is
// looser than the target, the comment gives the target and what was measured.

const server = targetedServer;

/** A concurrency cap of `slots` on pages of `latencyMs` (jitter half that), its capacity by Little's law. */
const cappedServer = (slots: number, latencyMs: number, overrides: Partial<FamilyServer>) =>
  server({
    kind: 'concurrency-cap',
    slots,
    latencyMs,
    jitterMs: latencyMs / 2,
    rate: [{ fromMs: 0, rate: (slots * 1000) / (latencyMs * 1.25) }],
    ...overrides,
  });

/**
 * A 60 s run on a limit of `kind` at `rate` req/s with no burst (burst 1), on pages of `latencyMs`
 * (jitter half that), the client allowed `slots` in flight.
 */
const burstless = (
  kind: FamilyServer['kind'],
  rate: number,
  latencyMs: number,
  slots: number,
  retryAfter: FamilyServer['retryAfter'],
) =>
  server({
    kind,
    rate: [{ fromMs: 0, rate }],
    burst: 1,
    latencyMs,
    jitterMs: latencyMs / 2,
    retryAfter,
    client: { maxConcurrency: slots, timeoutMs: 30_000 },
    durationMs: 60_000,
  });

/** Capacity 20 req/s, four times that from 90 s on. */
const stepUp = [
  { fromMs: 0, rate: 20 },
  { fromMs: 90_000, rate: 80 },
];

async function stepUpSeconds(overrides: Partial<FamilyServer>): Promise<number> {
  const { measures } = await runFamilyServer(server({ rate: stepUp, ...overrides }), ratewise);
  expect(measures.stepUps).toHaveLength(1);
  return measures.stepUps[0]?.seconds as number;
}

/** Ratewise's measures on a quota of `rate` requests/s in 10 s windows, on the pages and clients of `overrides`. */
async function quotaMeasures(rate: number, overrides: Partial<FamilyServer>) {
  const quota = server({
    kind: 'quota',
    rate: [{ fromMs: 0, rate }],
    windowMs: 10_000,
    ...overrides,
  });
  return (await runFamilyServer(quota, ratewise)).measures;
}

/** Ratewise's measures over 300 s on a 60 s sliding log granting `rate` requests/s, with the pages, clients and hints of `overrides`. */
async function longLogMeasures(rate: number, overrides: Partial<FamilyServer>) {
  const log = server({
    kind: 'sliding-log',
    rate: [{ fromMs: 0, rate }],
    windowMs: 60_000,
    durationMs: 300_000,
    ...overrides,
  });
  return (await runFamilyServer(log, ratewise)).measures;
}

describe('ratewise on targeted family servers (virtual time)', () => {
  it('finds a capacity that rose 4x within seconds when refusals are cheap (Retry-After: 0)', async () => {
    // Target 5 s: the probe's excess doubles each second from 5 %. Where the step falls in the
    // probes' cycle decides most of it (times cluster at 6, 11, 16 and 21 s: the first probe after
    // the step finds it), so one step time is luck: at 90 s the median of six runs was 6.9 s on
    // main at aa293c9 and 11.9 s with a guessed first ceiling checked steeply, which shifts every
    // later probe by the seconds its cold start saves. The median over eight step times (80-115 s)
    // of three runs each is asserted: 12.1 s on main (mean 13.8 s), 11.4 s (12.1 s) with the steep
    // check; over 80-117.5 s every 2.5 s, six runs each: 11.4 s (12.5 s) and 9.9 s (11.1 s).
    const runs = [80, 85, 90, 95, 100, 105, 110, 115].flatMap((atS) =>
      [0, 1, 2].map((index) =>
        stepUpSeconds({
          retryAfter: 'zero',
          index,
          rate: [
            { fromMs: 0, rate: 20 },
            { fromMs: atS * 1000, rate: 80 },
          ],
          durationMs: (atS + 40) * 1000,
        }),
      ),
    );
    const seconds = (await Promise.all(runs)).sort((a, b) => a - b);
    const half = seconds.length / 2;
    expect(((seconds[half - 1] as number) + (seconds[half] as number)) / 2).toBeLessThanOrEqual(12);
  }, 120_000);

  it('finds a capacity that rose 4x within 30 s when each refusal brings a 2 s pause', async () => {
    expect(
      await stepUpSeconds({ kind: 'fixed-window', retryAfter: 'fixed', retryAfterS: 2 }),
    ).toBeLessThanOrEqual(30);
  });

  it('holds a capacity that rose 7x behind 4 s pauses near where its first refused probe found it', async () => {
    // Target 95 %. A probe climbing from 25 req/s to a bucket or GCRA raised to 175, its excess
    // doubling each second, is refused soon after crossing 175 and counts its climb over the 2 s
    // before: ~70 % of it. Held there, the next probe was the budget's, 20 pauses of earning (80 s)
    // or more away: median steady goodput 66 % (bucket) and 65 % (GCRA) over four step times and
    // two draws on main at d7789fb, 62.0 % and 59.8 % at 4ef053b (a refusal after a refused probe
    // returns to its reading); with the next probe owed, 79.5 % and 77.5 % on d7789fb, 71.7 % and
    // 68.5 % on 4ef053b.
    for (const kind of ['token-bucket', 'gcra'] as const) {
      const runs = [70, 80, 90, 100].flatMap((atS) =>
        [0, 1].map(async (index) => {
          const rose = server({
            kind,
            index,
            retryAfter: 'fixed',
            retryAfterS: 4,
            rate: [
              { fromMs: 0, rate: 25 },
              { fromMs: atS * 1000, rate: 175 },
            ],
            durationMs: (atS + 90) * 1000,
          });
          return (await runFamilyServer(rose, ratewise)).measures;
        }),
      );
      const measures = await Promise.all(runs);
      const goodput = measures.map((m) => m.goodput as number).sort((a, b) => a - b);
      expect(((goodput[3] as number) + (goodput[4] as number)) / 2).toBeGreaterThanOrEqual(0.67);
      for (const m of measures) expect(m.refused).toBeLessThanOrEqual(0.005);
    }
  }, 60_000);

  it('follows a capacity that rose 4x on second-long pages: the concurrency limit does not hold it back', async () => {
    // The limit bound far below capacity (all requests in flight, none refused) and grew one per
    // round trip, a second each: 68.3 % and 64.6 % steady, the raised capacity never reached
    // before. Growth that doubles each round trip the limit binds: 85.9 % and 88.7 %, 40-42 s.
    const slow = (kind: FamilyServer['kind'], latencyMs: number, rate: number) =>
      server({
        kind,
        burst: 1,
        latencyMs,
        jitterMs: latencyMs / 3,
        rate: [
          { fromMs: 0, rate },
          { fromMs: 90_000, rate: 4 * rate },
        ],
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
      });
    const runs = await Promise.all(
      [slow('sliding-log', 1000, 50), slow('fixed-window', 1200, 30)].map((s) =>
        runFamilyServer(s, ratewise),
      ),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.8);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
      expect(measures.stepUps[0]?.seconds).toBeLessThanOrEqual(60);
    }
  });

  it('climbs on second-long pages about each second, not each round trip, while all is success', async () => {
    // Nothing refused in the climb: the cold start is the slow start's alone. Doubling each round
    // trip (1.5-2.3 s) took 12-14 s to fill 256 slots: cold start 51.3 % and 41.9 % before; each
    // success adding 2^(rtt / 1 s) - 1 while the latency stays flat: 58.5 % and 53.1 % — only
    // about ×2 a round trip still, as the requests of a round were judged unused against a limit
    // grown ×3–4 since they were sent; judged against the limit they were sent under: 74.4 % and
    // 65.8 %.
    const slow = (kind: FamilyServer['kind'], rate: number, latencyMs: number, jitterMs: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst: 100,
        latencyMs,
        jitterMs,
        retryAfter: 'none',
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
        durationMs: 60_000,
      });
    const [bucket, gcra] = await Promise.all(
      [slow('token-bucket', 400, 1500, 500), slow('gcra', 250, 2000, 300)].map((s) =>
        runFamilyServer(s, ratewise),
      ),
    );
    expect(bucket?.measures.coldStart).toBeGreaterThanOrEqual(0.7);
    expect(gcra?.measures.coldStart).toBeGreaterThanOrEqual(0.62);
    for (const run of [bucket, gcra]) {
      expect(run?.measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(run?.measures.refusedAll).toBeLessThanOrEqual(0.01);
    }
  });

  it('finds each rise of a limit that refills within 10 s when refusals are cheap: a refused probe that names no pause brings none', async () => {
    // Target 5 s. A 40 req/s bucket of burst 4 doubling at 40 s, doubling again at 100 s, back at
    // 160 s, doubling at 200 s. Each refused probe paused 1 s (none) or 500 ms (Retry-After: 0),
    // billed to the probe budget at 5 % of the time: a probe each 10-20 s, each rise found in up
    // to 25-33 s (goodput 85.0-93.9 % on main 6d13f82, server indexes 0 and 1); 3-8 s and
    // 97.7-99.0 % with the free probe.
    const steps = [
      { fromMs: 0, rate: 40 },
      { fromMs: 40_000, rate: 80 },
      { fromMs: 100_000, rate: 160 },
      { fromMs: 160_000, rate: 40 },
      { fromMs: 200_000, rate: 80 },
    ];
    for (const retryAfter of ['zero', 'none'] as const) {
      for (const index of [0, 1]) {
        const bucket = server({ index, rate: steps, burst: 4, retryAfter, durationMs: 240_000 });
        const { measures } = await runFamilyServer(bucket, ratewise);
        expect(measures.stepUps).toHaveLength(3);
        for (const step of measures.stepUps) expect(step.seconds).toBeLessThanOrEqual(10);
        expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
        expect(measures.refused).toBeLessThanOrEqual(0.01);
      }
    }
  }, 60_000); // 240 s of a 40-160 req/s server four times: ~8 s of CPU

  it('finds a 1 s window that doubled within half a minute on average when it names no pause', async () => {
    // A fixed window of 60 req/s that doubles at 100-121 s, refusing with no Retry-After. A probe
    // spends the window and its aftermath's refusal brings the unhinted pause of a second the
    // controller chose itself; billed a second to the pause credit (5 % of the time), each probe
    // cost 20 s of earning and a raise waited 22-71 s (mean 46.7 s; goodput 69.5-93.5 %). Billed
    // half a second, 8-42 s (mean 18.6 s; 84.2-95.9 %), refused 0.1 % either way.
    const runs = [0, 1, 2, 3].map(async (index) => {
      const window = server({
        kind: 'fixed-window',
        index,
        retryAfter: 'none',
        rate: [
          { fromMs: 0, rate: 60 },
          { fromMs: 100_000 + index * 7_000, rate: 120 },
        ],
      });
      return (await runFamilyServer(window, ratewise)).measures;
    });
    const measures = await Promise.all(runs);
    const seconds = measures.map((m) => m.stepUps[0]?.seconds ?? Infinity);
    expect(seconds.reduce((a, b) => a + b, 0) / seconds.length).toBeLessThanOrEqual(30);
    for (const m of measures) {
      expect(m.goodput).toBeGreaterThanOrEqual(0.8);
      expect(m.refused).toBeLessThanOrEqual(0.005);
    }
  }, 300_000);

  it('waits out a long window the server keeps closed in pauses that grow with it, not doubling past its end', async () => {
    // Target 95 %. A 60 s sliding log at 200 req/s grants a whole minute's requests to a burst, then
    // stays closed until the first of them ages out. Pauses doubling while it refused on resume
    // (1, 2, 4 ... 32 s, or 4, 8, 16, 32 s on a constant Retry-After: 4), and a breaker whose
    // cooldown doubled on each refused probe, came back long after it reopened: 88.1 % and 75.0 %.
    // Each pause at most a quarter of the time closed, and a 429 no breaker strike: 100 % both.
    for (const [retryAfter, retryAfterS, latencyMs, maxConcurrency] of [
      ['none', 1, 50, 64],
      ['fixed', 4, 300, 256],
    ] as const) {
      const measures = await longLogMeasures(200, {
        retryAfter,
        retryAfterS,
        latencyMs,
        jitterMs: latencyMs / 5,
        client: { maxConcurrency, timeoutMs: 30_000 },
      });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.93);
      expect(measures.refused).toBeLessThanOrEqual(0.005);
    }
  }, 120_000); // 300 s of a 200 req/s server twice: ~10 s of CPU

  it('resumes a long log that reopens gradually without cutting the rate for its first refusal', async () => {
    // Target 98 %. A 60 s log at 400 req/s reopens at the rate its oldest entries were sent: the
    // first sends after the closure's pause outrun it and one is refused. Read as a refusal of the
    // held rate, it halved the rate (86.8 %, and 96.3 % with the quarter-of-closed pauses); read as
    // the closure's tail (sent within 1 s of that pause's end), it brings a pause, no cut: 100 %.
    const measures = await longLogMeasures(400, {
      refusalStatus: 503,
      retryAfter: 'fixed',
      retryAfterS: 2,
      latencyMs: 350,
      jitterMs: 245,
      client: { maxConcurrency: 256, timeoutMs: 30_000 },
    });
    expect(measures.goodput).toBeGreaterThanOrEqual(0.98);
    expect(measures.refused).toBeLessThanOrEqual(0.005);
  }, 120_000); // 300 s of a 400 req/s server: ~6 s of CPU

  it('waits out a 10 s log under timing noise: a resume’s refusals come back out of order, still the closure', async () => {
    // Target 95 % (96.0 % without noise). 0–20 ms of timing noise each way (a loaded client on
    // loopback) brings the refusals of each resume into a 10 s log still full back out of send
    // order: the one first in was not the first send's, read as the rate's, and a resume cut the
    // rate (three draws: 73.6, 75.4, 75.2 % on main abcd3e9). Judged by send order within the
    // refusals' reorder span, they are the closure's: 90.2, 85.5, 83.6 % (refused up to 0.97 %).
    let goodput = 0;
    for (const index of [0, 1, 2]) {
      const log = server({
        index,
        kind: 'sliding-log',
        rate: [{ fromMs: 0, rate: 140 }],
        windowMs: 10_000,
        retryAfter: 'none',
        latencyMs: 60,
        jitterMs: 45,
        client: { maxConcurrency: 32, timeoutMs: 30_000 },
        durationMs: 240_000,
      });
      const { measures } = await runFamilyServer(log, ratewise, { timingNoiseMs: 20 });
      expect(measures.refused).toBeLessThanOrEqual(0.015);
      goodput += (measures.goodput ?? 0) / 3;
    }
    expect(goodput).toBeGreaterThanOrEqual(0.8);
  }, 60_000); // 240 s of a 140 req/s server three times: ~8 s of CPU

  it('still cuts an unpaced burst under timing noise: an earlier send accepted refutes a closure', async () => {
    // Target 95 %. A GCRA met unpaced with 256 in flight refuses at once and answers its grants
    // ~0.8 s later; with timing noise every refusal of a resume comes in before any acceptance.
    // Forgiven as a closure and never refuted, nothing was ever cut: 2.5 % with 87.5 % refused.
    for (const index of [1, 2, 3]) {
      const gcra = server({
        index,
        kind: 'gcra',
        rate: [{ fromMs: 0, rate: 100 }],
        burst: 30,
        latencyMs: 800,
        jitterMs: 600,
        refusalStatus: 503,
        retryAfter: 'http-date',
        retryAfterS: 5,
        dateSkewMs: 29_000,
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
        durationMs: 120_000,
      });
      const { measures } = await runFamilyServer(gcra, ratewise, { timingNoiseMs: 20 });
      expect(measures.goodput).toBeGreaterThanOrEqual(0.85);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  }, 60_000);

  it('uses a published quota to the edge: epoch resets from a server clock 7 s ahead, no refusal', async () => {
    const measures = await quotaMeasures(30, {
      quota: { headers: 'x-ratelimit', resetForm: 'epoch' },
      dateSkewMs: 7000,
    });
    expect(measures.refused).toBe(0);
    expect(measures.goodput).toBeGreaterThanOrEqual(0.98);
  });

  it('uses a slow server’s quota to the window edge: its boundaries learned as send times, no refusal', async () => {
    // Target 98 %. A page takes 1.5 s (± 0.7 s): counted from the answer's arrival, every reset
    // was 1.5 s late in a 10 s window (85.0 %); from halfway through the round trip, 89.8 %; from
    // the boundaries seen as send times (remaining going up between two requests sent), 97.5 %.
    const measures = await quotaMeasures(30, {
      latencyMs: 1500,
      jitterMs: 700,
      retryAfter: 'wait',
      client: { maxConcurrency: 128, timeoutMs: 30_000 },
    });
    expect(measures.goodput).toBeGreaterThanOrEqual(0.97);
    expect(measures.refused).toBe(0);
  });

  it('uses a quota published in epoch seconds by a skewed server with slow pages, no refusal', async () => {
    // Before: 100 % with 5.1 % refused (a window length read from a 2 s-coarse reset, the reset
    // phase pinned halfway through 1.2-2 s round trips). Now 97.1 %, none refused.
    const measures = await quotaMeasures(30, {
      latencyMs: 1200,
      jitterMs: 800,
      dateSkewMs: -12_000,
      quota: { headers: 'x-ratelimit', resetForm: 'epoch' },
      client: { maxConcurrency: 128, timeoutMs: 30_000 },
      durationMs: 90_000,
    });
    expect(measures.goodput).toBeGreaterThanOrEqual(0.96);
    expect(measures.refused).toBe(0);
  });

  it('leaves an unseen consumer its share of a quota: no refusal at the window’s end', async () => {
    // Before: 0.24 % and 9.4 % refused (the quota spread to its last request, which the other
    // consumer took first); now none, at 99.8 % and 98.8 % of what is left to us.
    for (const [rate, headers, latencyMs, share] of [
      [30, 'both', 400, 0.3],
      [60, 'x-ratelimit', 800, 0.25],
    ] as const) {
      const measures = await quotaMeasures(rate, {
        latencyMs,
        jitterMs: latencyMs / 2,
        quota: { headers, resetForm: 'epoch' },
        background: { share, active: [{ fromMs: 0, toMs: 90_000 }] },
        client: { maxConcurrency: 128, timeoutMs: 30_000 },
        durationMs: 90_000,
      });
      expect(measures.refused).toBe(0);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.97);
    }
  });

  it('uses a quota to its last request when pages take 1.5–3.5 s: what is in flight counted once', async () => {
    // Before: 97.8 % and 95.6 % — the requests in flight were all subtracted from the freshest
    // `remaining`, though it had counted those sent before its own request; now 99.1 % / 99.9 %.
    for (const [rate, latencyMs, jitterMs, slots] of [
      [1.5, 2000, 1500, 10],
      [6, 1500, 1500, 40],
    ] as const) {
      const pages = { latencyMs, jitterMs, client: { maxConcurrency: slots, timeoutMs: 30_000 } };
      const measures = await quotaMeasures(rate, {
        ...pages,
        quota: { headers: 'both', resetForm: 'epoch' },
      });
      expect(measures.refused).toBe(0);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.98);
    }
  });

  it('leaves an unseen consumer its share of a large quota on slow pages, and no more', async () => {
    // Before: 95.1 % and 96.5 % (in flight subtracted twice; others' use read from answers a
    // round trip old); now 99.7 % and 99.9 %, none refused — others' use is read from our sends'
    // ordinals over this window and the one before.
    for (const [rate, share, latencyMs, jitterMs, slots] of [
      [30, 0.24, 1700, 1400, 160],
      [58, 0.41, 1300, 850, 226],
    ] as const) {
      const measures = await quotaMeasures(rate, {
        latencyMs,
        jitterMs,
        client: { maxConcurrency: slots, timeoutMs: 30_000 },
        quota: { headers: 'x-ratelimit', resetForm: 'epoch' },
        background: { share, active: [{ fromMs: 0, toMs: 180_000 }] },
      });
      expect(measures.refused).toBe(0);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.98);
    }
  });

  it('fits every request of a small quota into its window with two slots', async () => {
    // 10 requests per 10 s: 92.0 % before (9 of 10 in most windows), 100 % now.
    const measures = await quotaMeasures(1, {
      latencyMs: 300,
      jitterMs: 300,
      quota: { headers: 'both', resetForm: 'epoch' },
      client: { maxConcurrency: 2, timeoutMs: 30_000 },
    });
    expect(measures.goodput).toBeGreaterThanOrEqual(0.98);
    expect(measures.refused).toBe(0);
  });

  it('does not let latency alarms slow a count-keyed ramp, where slowing down cannot help', async () => {
    const ramp = server({
      kind: 'count-ramp',
      rate: [{ fromMs: 0, rate: 0 }],
      ramp: { stepMs: 50, stepRequests: 100, maxDelayMs: 2000, windowMs: Infinity },
      client: { maxConcurrency: 20, timeoutMs: 30_000, urls: 2000 },
    });
    const [mine, fixed] = await Promise.all([
      runFamilyServer(ramp, ratewise),
      runFamilyServer(ramp, fixedJitter),
    ]);
    // Target 1.05x; measured 1.03x with alarms judged after 2.5 s, 1.01x after 1 s.
    expect((mine.batchS as number) / (fixed.batchS as number)).toBeLessThanOrEqual(1.1);
    expect(mine.finalQuarterRate as number).toBeGreaterThanOrEqual(
      0.95 * (fixed.finalQuarterRate as number),
    );
  });

  it('spends little on a futile latency alarm on a short count-keyed ramp', async () => {
    // Batches of 20-30 s: the alarm's experiment (a quarter of the rate until judged) is a large
    // share. Judged after 2.5 s: 1.080 / 1.098x a fixed-concurrency client's batch; after 1 s:
    // 1.039 / 1.047x.
    const ramps = [
      { latencyMs: 136, stepMs: 21, stepRequests: 197, maxDelayMs: 3580, urls: 2853 },
      { latencyMs: 104, stepMs: 29, stepRequests: 127, maxDelayMs: 2150, urls: 1960 },
    ].map(({ latencyMs, urls, ...ramp }) =>
      server({
        kind: 'count-ramp',
        rate: [{ fromMs: 0, rate: 0 }],
        latencyMs,
        ramp: { ...ramp, windowMs: Infinity },
        client: { maxConcurrency: 32, timeoutMs: 30_000, urls },
      }),
    );
    for (const ramp of ramps) {
      const [mine, fixed] = await Promise.all([
        runFamilyServer(ramp, ratewise),
        runFamilyServer(ramp, fixedJitter),
      ]);
      expect((mine.batchS as number) / (fixed.batchS as number)).toBeLessThanOrEqual(1.06);
    }
  });

  it('holds a concurrency cap with the concurrency limit, not with a rate read through the cap', async () => {
    // Refusals come while the rate probes (which raises the concurrency too), so each alone is
    // ambiguous; three congestion events refused above every success show the cap. Before: 77-79 %.
    const capped = (slots: number, latencyMs: number, maxConcurrency: number) =>
      cappedServer(slots, latencyMs, {
        retryAfter: 'none',
        client: { maxConcurrency, timeoutMs: 30_000 },
      });
    const runs = await Promise.all(
      [capped(12, 300, 32), capped(40, 150, 100)].map((s) => runFamilyServer(s, ratewise)),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures.refused).toBeLessThanOrEqual(0.015);
    }
  });

  it('finds the share an unseen consumer gives back within 30 s when each refusal costs a pause, where it came after the start', async () => {
    // Issue 9: a capacity that rises is found within 30 s when each refusal costs a pause. A
    // consumer that takes 30 % of a 30 req/s limit from 60 s to 210 s leaves its ceiling under
    // the peak read before it came: the next probe then waits no more than about 20 s, not the
    // 80 s a patience of 4 stretched it to (probes made while the consumer stayed found the
    // ceiling where it was). Measured over these 16 runs, seconds from the departure to a second
    // at 90 %: mean 36.6 s before (1.2-85.3 s), 20.7 s after. Where the consumer is there from
    // the start no peak sees its share, and nothing here helps: 37.8 s before, 33.8 s after.
    const runs = (['fixed-window', 'sliding-log', 'token-bucket', 'gcra'] as const).flatMap(
      (kind) =>
        (['fixed', 'http-date'] as const).flatMap((retryAfter) =>
          [0, 1].map(async (index) => {
            const shared = server({
              kind,
              index,
              retryAfter,
              rate: [{ fromMs: 0, rate: 30 }],
              background: { share: 0.3, active: [{ fromMs: 60_000, toMs: 210_000 }] },
              durationMs: 300_000,
            });
            const { measures } = await runFamilyServer(shared, ratewise);
            const back = measures.stepUps.find((step) => step.atMs === 210_000);
            return Math.min(90, back?.seconds ?? Infinity); // never found: the 90 s left
          }),
        ),
    );
    const seconds = await Promise.all(runs);
    expect(seconds.reduce((sum, s) => sum + s, 0) / seconds.length).toBeLessThanOrEqual(30);
  }, 120_000);

  it('finds a rise soon after a capacity that fell right after a refused probe, its refusals billed to the probe', async () => {
    // A 1 s window answering `Retry-After: 2` falls from 90 req/s to 35-40 just after the probe
    // at about 33 s (index 0 of these draws; at the others the probe came later and nothing here
    // changes). The refusals that follow within 10 s, at rates above the one held before the probe,
    // are billed to it as its aftermath: four refusals and 8 s of pauses took the pause credit to
    // -7.4 s, about 150 s of earning at 5 %, and the rise at 110 or 120 s waited for it. The
    // aftermath now leaves no debt beyond 30 s of earning. Measured: goodput 50.0 / 30.9 % before
    // (the rise never found / found in 109 s), 83.6 / 86.3 % after (41 / 9 s).
    const steps = (at: number[], rates: number[]) =>
      at.map((s, i) => ({ fromMs: s * 1000, rate: rates[i] ?? 0 }));
    const shapes = [
      { rate: steps([0, 38, 110], [90, 40, 90]), riseAt: 110_000 },
      { rate: steps([0, 38, 70, 120], [90, 35, 12, 60]), riseAt: 120_000 },
    ];
    const runs = await Promise.all(
      shapes.map(async ({ rate, riseAt }) => {
        const fell = server({
          kind: 'fixed-window',
          rate,
          burst: 0,
          latencyMs: 500,
          jitterMs: 300,
          retryAfter: 'fixed',
          retryAfterS: 2,
          durationMs: 240_000,
        });
        const { measures } = await runFamilyServer(fell, ratewise);
        return { measures, rise: measures.stepUps.find((step) => step.atMs === riseAt) };
      }),
    );
    for (const { measures, rise } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.75);
      expect(rise?.seconds ?? Infinity).toBeLessThanOrEqual(60);
    }
  }, 60_000);

  it('obeys a limit that refuses with bare 503s once an unseen consumer takes a share of it', async () => {
    // The rate learned before the consumer came is refused a tenth of the time: bare 503s at that
    // share passed for an origin's noise and were never obeyed (6.7 % refused before; 2.0 %
    // measured: one tried as a refusal cuts the rate, and the errors stop).
    const shared = server({
      kind: 'gcra',
      rate: [{ fromMs: 0, rate: 40 }],
      burst: 20,
      refusalStatus: 503,
      retryAfter: 'none',
      client: { maxConcurrency: 16, timeoutMs: 30_000 },
      background: { share: 0.15, active: [{ fromMs: 60_000, toMs: 180_000 }] },
    });
    const { measures } = await runFamilyServer(shared, ratewise);
    expect(measures.refused).toBeLessThanOrEqual(0.03);
    expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
  });

  it('checks a ceiling guessed from a refusal in the first round trip as steeply as a slow start climbs', async () => {
    // Refused before anything was measured (a small burst met at once), the first ceiling is a
    // guess, "as many per second as were in flight": 2-4 req/s against 30-100. Probed from on the
    // gentle curve of a measured ceiling (5 % above it, the excess doubling each second) it took
    // 8-9 s to climb x15, and its refusal was judged over the steepest 2 s, two thirds of capacity.
    // Cold start 40.6 / 37.9 / 16.0 %, steady 80.5 / 89.2 / 77.6 % before; the excess doubling
    // each quarter second (never over twice what is accepted), judged by its last second: 65.3 /
    // 61.8 / 24.2 %, 89.6 / 92.3 / 97.0 % (simulation seeds 10-11 alike; the paused one 20.5-23.0 %).
    const fast = (kind: FamilyServer['kind'], rate: number, burst: number, latencyMs: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst,
        latencyMs,
        jitterMs: latencyMs / 2,
        client: { maxConcurrency: 32, timeoutMs: 30_000 },
        durationMs: 60_000,
      });
    const runs = await Promise.all(
      [
        { ...fast('token-bucket', 60, 3, 25), retryAfter: 'none' as const },
        fast('gcra', 100, 2, 50),
        // 30 req/s answering every refusal with a 5 s pause: two of them in the first 20 s.
        {
          ...fast('gcra', 30, 2, 120),
          retryAfter: 'fixed' as const,
          retryAfterS: 5,
          client: { maxConcurrency: 10, timeoutMs: 30_000 },
        },
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    const [bucket, gcra, paused] = runs.map((run) => run.measures);
    expect(bucket?.coldStart).toBeGreaterThanOrEqual(0.55);
    expect(gcra?.coldStart).toBeGreaterThanOrEqual(0.55);
    expect(paused?.coldStart).toBeGreaterThanOrEqual(0.19);
    for (const measures of [bucket, gcra]) expect(measures?.goodput).toBeGreaterThanOrEqual(0.85);
    expect(paused?.goodput).toBeGreaterThanOrEqual(0.9);
    for (const measures of [bucket, gcra, paused]) {
      expect(measures?.refusedAll).toBeLessThanOrEqual(0.01);
    }
  });

  it('reads the probe that checks a guess from one or two in flight by its last second, not as a grant after a pause', async () => {
    // Slow burst-1 limits met by two or three requests at once: the guessed first ceiling (about
    // 2 req/s) is probed gently and refused near capacity 5-8 s later. On a slow scope the meter's
    // window is long (20 requests), so that refusal fell within two windows of the guess's pause
    // and was read as a grant soon after a pause: half the rate refused, no recount (cold start
    // 49.0 / 54.4 / 56.7 %, steady 61.3 / 77.0 / 98.1 % before). Judged by its last second (or 8
    // sends), a span the pause did not touch, it reads the capacity: 57.0 / 60.0 / 64.2 %, steady
    // 84.0 / 86.7 / 98.1 % (simulation seeds 10-11: 57.0 / 60.0 / 64.2 %, 84.7 / 85.2-86.7 / 98.1 %).
    const runs = await Promise.all(
      [
        burstless('token-bucket', 5, 150, 3, 'wait'),
        burstless('token-bucket', 4.5, 190, 2, 'none'),
        burstless('gcra', 12, 20, 2, 'zero'),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    const [waiting, bare, quick] = runs.map((run) => run.measures);
    expect(waiting?.coldStart).toBeGreaterThanOrEqual(0.55);
    expect(bare?.coldStart).toBeGreaterThanOrEqual(0.58);
    expect(quick?.coldStart).toBeGreaterThanOrEqual(0.62);
    expect(waiting?.goodput).toBeGreaterThanOrEqual(0.8);
    expect(bare?.goodput).toBeGreaterThanOrEqual(0.82);
    for (const measures of [waiting, bare, quick]) {
      expect(measures?.refusedAll).toBeLessThanOrEqual(0.025);
    }
  });

  it('checks a guess from one or two in flight within seconds on a fast limit of burst 1', async () => {
    // A limit of burst 1 refuses the second send of the slow start's first round trip, whatever its
    // rate: the guessed first ceiling is about 2 req/s against 12-26. Probed from on the gentle
    // curve of a measured ceiling (5 % above it, the excess doubling each second) it took 7-10 s to
    // climb there, and a free probe's refusal then held that guess until its recount: cold start
    // 62 / 55 / 45 % before (simulation seeds 9, index 0-2 and 10-11: 62 / 54-55 / 43-45 %). The
    // excess doubling each half second, and a refused free probe holding half the rate refused:
    // 70 / 69 / 53 % (65-71 / 69-71 / 53-55 %). Slow limits of burst 1 keep their own tests above.
    const runs = await Promise.all(
      [
        burstless('gcra', 12, 20, 2, 'zero'),
        burstless('token-bucket', 20, 100, 8, 'none'),
        burstless('token-bucket', 26, 140, 9, 'http-date'),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    const [quick, bare, dated] = runs.map((run) => run.measures);
    expect(quick?.coldStart).toBeGreaterThanOrEqual(0.64);
    expect(bare?.coldStart).toBeGreaterThanOrEqual(0.65);
    expect(dated?.coldStart).toBeGreaterThanOrEqual(0.5);
    for (const measures of [quick, bare]) expect(measures?.goodput).toBeGreaterThanOrEqual(0.94);
    expect(dated?.goodput).toBeGreaterThanOrEqual(0.78);
    for (const measures of [quick, bare, dated]) {
      expect(measures?.refusedAll).toBeLessThanOrEqual(0.012);
    }
  });

  it('checks soon a first ceiling counted from what the slow start sent, on limits refused for their burst', async () => {
    // A bucket or GCRA whose burst the unpaced slow start outruns refuses it while it sends, a
    // round trip apart, bursts under the limit's rate: the first ceiling, counted from those sends,
    // is what the slow start sent (about half the capacity), not what the server grants. Held as a
    // measured ceiling, it waited for the budget's first probe or climbed gently for 7 s. Cold start
    // 71 / 77 / 52 % before; checked at once as a gentle guess: 79 / 86 / 67 % (81 / 86 / 67 % with
    // session 26's half-second pause beside it).
    const limit = (kind: FamilyServer['kind'], rate: number, burst: number, latencyMs: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst,
        latencyMs,
        jitterMs: latencyMs / 4,
        durationMs: 60_000,
      });
    const runs = await Promise.all(
      [
        { ...limit('token-bucket', 96, 8, 220), retryAfter: 'none' as const, jitterMs: 40 },
        limit('gcra', 80, 6, 200),
        {
          ...limit('gcra', 36, 4, 200),
          retryAfter: 'http-date' as const,
          jitterMs: 130,
          client: { maxConcurrency: 23, timeoutMs: 30_000 },
        },
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    const [bucket, gcra, dated] = runs.map((run) => run.measures);
    expect(bucket?.coldStart).toBeGreaterThanOrEqual(0.76);
    expect(gcra?.coldStart).toBeGreaterThanOrEqual(0.82);
    expect(dated?.coldStart).toBeGreaterThanOrEqual(0.6);
    for (const measures of [bucket, gcra, dated]) {
      expect(measures?.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures?.refusedAll).toBeLessThanOrEqual(0.01);
    }
  });

  it('reads the probe that checks a guess from a limit that granted one or two sends by its accepted spacing', async () => {
    // A limit that granted one or two of the first sends before refusing has (almost) no burst: its
    // accepted sends came at least one interval of its capacity apart, so the fastest spacing the
    // probe checking the guess was granted is its rate. Read by count, the probe's last second or
    // 8 sends hold its climb (a 4.5 req/s bucket: refused at a 217 ms spacing after one of 240 ms
    // was granted, counted 3.04 req/s and held there). Before: cold 57.0 / 60.0 / 76.7 %, steady
    // 84.0 / 86.7 / 90.0 %; now 70.0 / 72.2 / 83.3 %, 92.0 / 96.3 / 94.4 % (simulation seeds 10-11:
    // 69.0-70.0 / 71.1-72.2 / 81.7-83.3 %, steady 90.7-96.3 %). A raise the limit refuses as held
    // goes back to the count (`SpacingTrial`).
    const slow = (
      rate: number,
      latencyMs: number,
      slots: number,
      retryAfter: FamilyServer['retryAfter'],
    ) => burstless('token-bucket', rate, latencyMs, slots, retryAfter);
    const runs = await Promise.all(
      [slow(5, 150, 3, 'wait'), slow(4.5, 190, 2, 'none'), slow(3, 300, 2, 'none')].map((s) =>
        runFamilyServer(s, ratewise),
      ),
    );
    const [waiting, bare, slower] = runs.map((run) => run.measures);
    expect(waiting?.coldStart).toBeGreaterThanOrEqual(0.66);
    expect(bare?.coldStart).toBeGreaterThanOrEqual(0.68);
    expect(slower?.coldStart).toBeGreaterThanOrEqual(0.8);
    for (const measures of [waiting, bare, slower]) {
      expect(measures?.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures?.refusedAll).toBeLessThanOrEqual(0.02);
    }
  });

  it('cuts the rate for a fast limit’s refusal right after a pause, not the concurrency, on long pages', async () => {
    // A first ceiling read above a fast limit (a window's count over a second straddling two
    // windows) is held, and the limit refuses it a few hundred ms after each 1 s pause. That
    // refusal is sent at the top of the refill in flight, and the successes answered so far were
    // sent early in it: against the last 32 successes (80 ms at 400 req/s) it was taken for a
    // concurrency cap, the concurrency limit stepped down and the rate was never cut — a pause
    // every two seconds. Successes sent in the refill (less than their own round trip after the
    // pause) no longer lower the most in flight accepted, and the rate is cut.
    const fast = (kind: FamilyServer['kind'], rate: number, latencyMs: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        latencyMs,
        jitterMs: latencyMs / 5,
        retryAfter: 'wait',
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
        durationMs: 60_000,
      });
    const runs = await Promise.all(
      [
        fast('fixed-window', 330, 500),
        { ...fast('fixed-window', 400, 350), retryAfter: 'http-date' as const },
        fast('sliding-log', 300, 500),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    for (const { measures } of runs) {
      expect(measures.coldStart).toBeGreaterThanOrEqual(0.6);
      expect(measures.refusedAll).toBeLessThanOrEqual(0.01);
    }
  });

  it('cuts the rate for a slow limit’s refusal at two in flight, not the concurrency, on second-long pages', async () => {
    // About one request a second on 1.2-2 s pages with a constant 3-4 s pause: a send paced over
    // the limit goes out while the one before it is still in flight, and is refused at two in
    // flight, one past every success. Read as a cap of one, the rate (above the capacity) was
    // never cut and the concurrency held one page in flight: a pause every few sends (seed 2
    // #115, steady 24.7 %). Two in flight say nothing of a cap; the rate is cut. Measured 43.3 /
    // 50.0 / 79.0 % steady, 2.9 / 2.8 / 1.8 % refused before; 86.1 / 90.5 / 91.4 %, 1.0 % after.
    const slow = (kind: FamilyServer['kind'], rate: number, latencyMs: number, pauseS: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst: 1,
        latencyMs,
        retryAfter: 'fixed',
        retryAfterS: pauseS,
        client: { maxConcurrency: 12, timeoutMs: 30_000 },
        durationMs: 240_000,
      });
    const runs = await Promise.all(
      [
        slow('token-bucket', 1.1, 2000, 4),
        slow('sliding-log', 1.6, 1900, 4),
        slow('fixed-window', 1.2, 1200, 3),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.82);
      expect(measures.refused).toBeLessThanOrEqual(0.012);
    }
  });

  it('takes a concurrency cap met in the slow start as the concurrency limit’s, on trial', async () => {
    // The slow start's first refusal, above every success: read as a rate, it left a guessed
    // ceiling of "as many per second as were in flight" (cold start 30-40 % before); taken as a
    // tentative cap and checked one past it, the cap is held from the first seconds.
    const capped = (slots: number, latencyMs: number, retryAfter: FamilyServer['retryAfter']) =>
      cappedServer(slots, latencyMs, {
        retryAfter,
        retryAfterS: 4,
        client: { maxConcurrency: 2 * slots, timeoutMs: 30_000 },
        durationMs: 60_000,
      });
    const [fast, paused] = await Promise.all(
      [capped(10, 40, 'zero'), capped(60, 170, 'fixed')].map((s) => runFamilyServer(s, ratewise)),
    );
    expect(fast?.measures.coldStart).toBeGreaterThanOrEqual(0.9);
    // One 4 s pause in the first 20 s, the first refusal's: the check one past the cap, which the
    // cap refuses with the same pause, waits for the probe budget to earn it (two pauses, the
    // check's a second after the first ended, held it near 60 % before: 57.8 %; now 77.4 %).
    expect(paused?.measures.coldStart).toBeGreaterThanOrEqual(0.75);
    for (const run of [fast, paused]) expect(run?.measures.refused).toBeLessThanOrEqual(0.015);
  });

  it('takes a concurrency cap of three that refuses the first round trip as a cap on trial, not a guessed rate', async () => {
    // The fourth of the four first sends is refused before any success is in: a cap of three and a
    // limit of burst three look the same. Read as a rate, the cap was a guess of 3.9 req/s, and its
    // rate climbed to the cap's throughput only through refusals taken for the rate's (cold start
    // 52-65 %, steady 69-97 % before); on trial from that refusal (its pause a second at most), the
    // cap is held from the pause's end and confirmed by its check: 91-100 %, steady 96-100 %.
    const capped = (latencyMs: number, retryAfter: FamilyServer['retryAfter']) =>
      cappedServer(3, latencyMs, {
        retryAfter,
        retryAfterS: 1,
        client: { maxConcurrency: 8, timeoutMs: 30_000 },
        durationMs: 60_000,
      });
    const runs = await Promise.all(
      [capped(40, 'none'), capped(80, 'fixed'), capped(250, 'wait')].map((s) =>
        runFamilyServer(s, ratewise),
      ),
    );
    for (const { measures } of runs) {
      expect(measures.coldStart).toBeGreaterThanOrEqual(0.85);
      expect(measures.goodput).toBeGreaterThanOrEqual(0.95);
      expect(measures.refusedAll).toBeLessThanOrEqual(0.01);
    }
  });

  it('reads the grant of a server that answers in seconds once its pages are in', async () => {
    // A 429 comes back at once, a page 1.5 s later: recounted at a second, the grant read as a
    // third of capacity (58.5 % and 56.5 % before; 93.8 % and 93.0 % measured). The slow start's
    // first refusal here looks like a concurrency cap's too: held as one, the GCRA would be
    // served a tenth of its rate (the cap on trial is checked one past it, accepted, and dropped).
    const slow = (kind: FamilyServer['kind'], rate: number, jitterMs: number) =>
      server({
        kind,
        rate: [{ fromMs: 0, rate }],
        burst: 15,
        latencyMs: 1500,
        jitterMs,
        retryAfter: kind === 'gcra' ? 'none' : 'wait',
        client: { maxConcurrency: 256, timeoutMs: 30_000 },
      });
    const runs = await Promise.all(
      [slow('gcra', 90, 700), slow('sliding-log', 150, 300)].map((s) =>
        runFamilyServer(s, ratewise),
      ),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.88);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  });

  it('grows a concurrency limit back when a rate limit’s refusal at a few in flight was read as a cap, and finds the rises it held', async () => {
    // Seed 3 #134: a 1 s window stepping down to 4.8 req/s and back up to 10, 33.7 and 43.7, with
    // a 2 s pause for each refusal, on 0.5-0.8 s pages. At 151 s (10 req/s) a refusal sent at 8 in
    // flight, one past the latest successes, is read as a cap of 7. The concurrency ceiling was
    // then probing far past the 57 it had read in the first seconds, so the refusal was charged to
    // its budget as a refused probe (a 2 s pause at 3 % of the time: ~87 s of earning), and the
    // limit held 7-10 to the end while the capacity rose: 28.1 % steady, neither rise found. A
    // refusal below where the probe began is a capacity that fell, not the probe's price: 81.1 %,
    // the rises found in 20.7 s and 2.5 s.
    const { measures } = await runFamilyServer(drawServer(3, 134), ratewise);
    expect(measures.stepUps).toHaveLength(2);
    for (const stepUp of measures.stepUps) expect(stepUp.seconds).toBeLessThanOrEqual(30);
    expect(measures.goodput).toBeGreaterThanOrEqual(0.7);
  });

  it('holds a log on second-long pages with the rate once the slow start’s cap trial was refuted, not as a cap of a few', async () => {
    // Target 95 %. Seed 1 #174: a 1 s log of 6 req/s on 1-3 s pages. The slow start's first
    // refusal is the rate's (its cap trial refuted), and for a round trip after it the most in
    // flight any success was sent at is the first round's: three refusals within 0.6 s of the held
    // rate, above it, counted as three congestion events and showed a cap of 6 for the whole run.
    // Now a paced refusal after a refuted trial needs that evidence, and a refusal sent within a
    // success's round trip of the last refusal's arrival is the same event. Measured (180 s, 64
    // slots): 88.1 / 44.8 / 82.2 / 93.2 % steady, 1.00 / 1.47 / 1.07 / 0.57 % refused before; 95.2 /
    // 96.2 / 95.8 / 95.9 %, 0.46 / 0.35 / 0.35 / 0.42 % after. With a probe settled by the next cut
    // billed its own refusals only (not also that cut's): 94.6 / 95.7 / 95.8 / 95.9 %, 0.35 / 0.86 /
    // 0.35 / 0.42 % — more probes, within the probe budget's 1 %.
    const log = (rate: number, latencyMs: number, retryAfter: FamilyServer['retryAfter']) =>
      server({
        kind: 'sliding-log',
        rate: [{ fromMs: 0, rate }],
        burst: 1,
        latencyMs,
        jitterMs: latencyMs / 2,
        retryAfter,
      });
    const runs = await Promise.all(
      [
        log(6.1, 2000, 'zero'),
        log(4, 1800, 'zero'),
        log(6, 2000, 'wait'),
        log(5, 1600, 'http-date'),
      ].map((s) => runFamilyServer(s, ratewise)),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.93);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  });

  it('still holds real concurrency caps of 3, 7 and 30 behind a 2 s pause with the concurrency limit', async () => {
    // Each probe one past such a cap is refused past where it began, and pays its pause: probes
    // stay rare. Measured 91.5 / 98.3 / 97.5 % steady, 0.54 / 0.19 / 0.03 % refused, before and after.
    const capped = (slots: number, latencyMs: number) =>
      cappedServer(slots, latencyMs, {
        retryAfter: 'fixed',
        retryAfterS: 2,
        client: { maxConcurrency: Math.max(8, 3 * slots), timeoutMs: 30_000 },
      });
    const runs = await Promise.all(
      [capped(3, 600), capped(7, 800), capped(30, 500)].map((s) => runFamilyServer(s, ratewise)),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.9);
      expect(measures.refused).toBeLessThanOrEqual(0.01);
    }
  });

  it('still holds a concurrency cap of one with the concurrency limit, once refusals at two in flight show it', async () => {
    // One refusal at two in flight is a held rate's (a rate of one request a round trip refuses
    // there too); three congestion events of them, with no success at two, show the cap. Measured
    // 88.8 / 97.5 % steady, 1.1 / 2.5 % refused before; read as the rate's every time, 76.0 /
    // 57.5 %; shown by the evidence, 91.5 / 97.5 %, 0.5 / 1.3 % refused.
    const runs = await Promise.all(
      [
        cappedServer(1, 300, { retryAfter: 'fixed', retryAfterS: 2 }),
        cappedServer(1, 1500, { retryAfter: 'fixed', retryAfterS: 4 }),
      ].map((s) =>
        runFamilyServer({ ...s, client: { maxConcurrency: 8, timeoutMs: 30_000 } }, ratewise),
      ),
    );
    for (const { measures } of runs) {
      expect(measures.goodput).toBeGreaterThanOrEqual(0.88);
      expect(measures.refused).toBeLessThanOrEqual(0.03);
    }
  });

  it('on a small fixed sample of the family: polite on all, near capacity on most, never a hot loop', async () => {
    // The first 8 timed servers of seed 3 with a peak under 200 req/s (faster ones take seconds each).
    const sample: FamilyServer[] = [];
    for (let index = 0; sample.length < 8; index++) {
      const drawn = drawServer(3, index);
      if (!drawn.client.urls && Math.max(...drawn.rate.map((step) => step.rate)) < 200)
        sample.push(drawn);
    }
    const runs = await Promise.all(sample.map((drawn) => runFamilyServer(drawn, ratewise)));
    expect(runs.filter((run) => run.hotLoopAt !== undefined)).toEqual([]);
    const refused = runs.map((run) => run.measures.refused ?? 0);
    const goodput = runs.map((run) => run.measures.goodput ?? 0).sort((a, b) => a - b);
    // Measured: refused at most 4.2 % (a 1 req/s log, where each probe the time-based earning
    // floor pays for is 2 % of the requests), median goodput 87.1 %.
    expect(Math.max(...refused)).toBeLessThanOrEqual(0.05);
    expect(goodput[4]).toBeGreaterThanOrEqual(0.85);
  });
});
