import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/random.js';
import { createModel } from '../../src/sim/models/index.js';
import type { ServerModel } from '../../src/sim/models/model.js';
import { simulateModel } from '../../src/sim/simulate.js';
import { ratewiseStrategy, type Strategy } from '../../src/sim/strategies/index.js';

// Issue 13's hidden server as bench/integrations-sim.mjs runs it (the integrations twin): a 1 s
// fixed window of 30 req/s, 350 +- 50 ms pages, Retry-After in seconds, 40 workers.
const SERVER = { rate: 30, latencyMs: 350, jitterMs: 50, retryAfter: 'seconds' };

/** `strategy` with each request held 0..`ms` ms before it arrives and its answer 0..`ms` ms after. */
function jittered(strategy: Strategy, ms: number, seed: number): Strategy {
  const random = seededRandom(`jitter:${seed}`);
  return {
    ...strategy,
    run(context) {
      const { clock, transport } = context;
      const send: typeof transport.send = async (request) => {
        await clock.sleep(random.next() * ms);
        const exchange = await transport.send(request);
        await clock.sleep(random.next() * ms);
        return exchange;
      };
      return strategy.run({ ...context, transport: { send } });
    },
  };
}

/** The requests the server granted in the first `seconds` of a run of `seed` under `noiseMs`. */
async function grantedEarly(seed: number, noiseMs: number, seconds: number): Promise<number> {
  const server = createModel('fixed-window', SERVER, seededRandom(`server:${seed}`));
  let granted = 0;
  const counted: ServerModel = {
    name: server.name,
    capacity: (ms) => server.capacity(ms),
    arrive(request) {
      const reply = server.arrive(request);
      if (reply.status === 200 && request.at < seconds * 1000) granted++;
      return reply;
    },
    finish: (request, ms) => server.finish?.(request, ms),
  };
  await simulateModel(
    counted,
    {
      workload: { workers: 40, durationMs: seconds * 1000 },
      maxConcurrency: 40,
      timeoutMs: 30_000,
    },
    jittered(ratewiseStrategy(), noiseMs, seed),
    { seed },
  );
  return granted;
}

describe('cold start on a 1 s window under timing noise', () => {
  it('the grant since a refuted cap trial pause bounds the first count though the burst arrives out of order', async () => {
    // With 0-30 ms between sending and arriving (and answering), a few of the burst sent as the
    // trial's pause ends, sent after the refused request, arrive before it and are granted:
    // counted to the refused send, the window's 30 read 28 (seed 6), below the slow start's
    // reading (29.9), and bounded nothing (the first count, 41, held until refused late in a
    // window), or 27 (seed 7), which held the rate a tenth below the capacity: 230 and 236 granted
    // in the first 10 s on main a9713a4. Counted to the refusal's arrival, the grant is the
    // window's 30 and the rate holds 29.0-29.1 req/s from the second pause's end.
    const granted = await Promise.all([6, 7].map((seed) => grantedEarly(seed, 30, 10)));
    expect(Math.min(...granted)).toBeGreaterThanOrEqual(245);
  });

  it("holds a first count charged as a probe's reading as a measured ceiling: its first probe climbs gently", async () => {
    // The first count (29.1 req/s held from 3.3 s) was charged to the probe budget as a probe's
    // reading, yet it raised the slow start's lower bound and stayed a guess: the budget's first
    // probe, at 29 s, climbed as a guess's check, twice as steeply (37 req/s before its refusal
    // came back, under 0-10 ms of noise), its refusal left 31.5 req/s (over the window's 30), and
    // that rate was refused again 2 s later: 1,663-1,664 granted in 60 s on seeds 7 and 8 on
    // main 5692c44, a pause's worth (30) under the 1,693-1,694 of a measured ceiling's probe.
    const granted = await Promise.all([7, 8].map((seed) => grantedEarly(seed, 10, 60)));
    expect(Math.min(...granted)).toBeGreaterThanOrEqual(1680);
  });

  it('bounds the first count by a grant that reads a little under the refusal', async () => {
    // The refusal that refuted the cap trial read 31.1 and 32.4 req/s (seeds 9 and 6, 0-10 ms
    // each way) and 30.3 (seed 1, 0-30 ms): the burst's sends bunched by the noise. The grant
    // since the trial's pause read the window's 30, under that reading, and bounded nothing: the
    // first count (41) was raised to and refused late in a window, a second pause; 236-238
    // granted in the first 10 s on main 3f54c47. Read as the window it is, the grant holds the
    // rate at 29.1 req/s from the second pause's end: 258-259.
    const granted = await Promise.all([
      grantedEarly(9, 10, 10),
      grantedEarly(6, 10, 10),
      grantedEarly(1, 30, 10),
    ]);
    expect(Math.min(...granted)).toBeGreaterThanOrEqual(250);
  });
});
