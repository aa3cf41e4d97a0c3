import { describe, expect, it } from 'vitest';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';
import { ratewise } from '../../../src/sim/strategies/index.js';
import { targetedServer } from './targeted-server.js';

// Issue 9's loopback check: a concurrency cap of 13 on 73 ms pages served 97 % simulated and 76 %
// on loopback. A few ms of timing noise between client and server (what a loaded process and
// loopback add) does the same in the simulator: every family cap lost 14-16 points of what knowing
// the cap attains. Under noise a request's count of what was in flight is not the server's — it
// counts answers still on their way, and a request sent just after a refused one may have reached
// the server first — and the rules that tell a cap from a rate compared counts exactly: a success
// of the slow start's burst refuted the cap on trial, the refuted trial kept the cap's refusals
// from the concurrency for the whole run, and the evidence of later refusals was forgotten at every
// success the noise let in past them: the cap was paced as a rate limit. Now the evidence reads
// counts with the slack the refusals' round trips show (`CountNoise`), and under noise a refuted
// trial holds back the cap's refusals only until successes catch up.

/** A cap of `slots` on pages of `latencyMs` ± half of it, the client allowed three times the cap, for 120 s. */
const cap = (
  slots: number,
  latencyMs: number,
  retryAfter: FamilyServer['retryAfter'],
  index: number,
) =>
  targetedServer({
    index,
    kind: 'concurrency-cap',
    slots,
    rate: [{ fromMs: 0, rate: slots / ((1.25 * latencyMs) / 1000) }],
    latencyMs,
    jitterMs: latencyMs / 2,
    retryAfter,
    retryAfterS: 2,
    client: { maxConcurrency: 3 * slots, timeoutMs: 30_000 },
    durationMs: 120_000,
  });

/** Mean steady goodput of three draws of {@link cap} under 0-5 ms of noise each way, each refusing at most 1 %. */
async function meanGoodput(
  slots: number,
  latencyMs: number,
  retryAfter: FamilyServer['retryAfter'],
): Promise<number> {
  let goodput = 0;
  for (const index of [0, 1, 2]) {
    const server = cap(slots, latencyMs, retryAfter, index);
    const { measures } = await runFamilyServer(server, ratewise, { timingNoiseMs: 5 });
    expect(measures.refused).toBeLessThanOrEqual(0.01);
    goodput += (measures.goodput ?? 0) / 3;
  }
  return goodput;
}

/** Mean cold start (goodput over the first 20 s) of six draws of {@link cap} under 0-5 ms of noise each way. */
async function meanColdStart(
  slots: number,
  latencyMs: number,
  retryAfter: FamilyServer['retryAfter'],
): Promise<number> {
  let cold = 0;
  for (const index of [0, 1, 2, 3, 4, 5]) {
    const server = cap(slots, latencyMs, retryAfter, index);
    const { measures } = await runFamilyServer(server, ratewise, { timingNoiseMs: 5 });
    cold += (measures.coldStart ?? 0) / 6;
  }
  return cold;
}

describe('concurrency caps under timing noise', () => {
  it('finds a cap by its refusals with 0-5 ms of noise each way', async () => {
    // Target 95 % (99-100 % without noise). Mean of three draws; on main 622a574 86.5 % (a cap of
    // 40 on 600 ms pages, no Retry-After) and 77.8 % (24 on 1 s pages, Retry-After: 1), now 94.5
    // and 88.1 %: the refusals show the cap once their counts are read with the noise's slack.
    expect(await meanGoodput(40, 600, 'none')).toBeGreaterThanOrEqual(0.92);
    expect(await meanGoodput(24, 1000, 'wait')).toBeGreaterThanOrEqual(0.85);
  }, 60_000);

  it('reads a refusal at the top of the counts successes were sent at as the cap’s', async () => {
    // A success's count includes answers still on their way, most of all when answers come in
    // bunches, so under noise a cap's refusals come at a count a few successes reached too (1-3 %
    // of them in the family): never above every one, which the evidence asked. Mean of three
    // draws, 0-5 ms: on main 8c60e96 87.7 % (a cap of 6 on 500 ms pages, no Retry-After) and
    // 82.0 % (13 on 70 ms pages, Retry-After: one page), now 93.9 and 87.6 %.
    expect(await meanGoodput(6, 500, 'none')).toBeGreaterThanOrEqual(0.92);
    expect(await meanGoodput(13, 70, 'wait')).toBeGreaterThanOrEqual(0.85);
  }, 60_000);

  it('keeps the cap on trial through a slow start whose burst the noise counted past it', async () => {
    // Under noise a slow start's successes count answers still on their way: a cap's own burst
    // comes past the cap its first refusal showed, which refuted the trial, and the scope was paced
    // from a first count of a few hundred ms. The sends made after the refused one, before it was
    // heard, tell a cap (granted as requests leave) from a burst that ran out (refused), and a
    // burst sent at once as sending resumes finds the cap where noise had counted it high. Mean of
    // six draws, 0-5 ms, a cap of 13 on 70 ms pages: on main 09e3f94 54.3 %, now 62.2 % (two draws
    // of 51 and 55 % now 73 and 85 %).
    expect(await meanColdStart(13, 70, 'wait')).toBeGreaterThanOrEqual(0.6);
  }, 120_000);
});
