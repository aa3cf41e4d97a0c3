// Reads the send times `bench/fleet.mjs throughput --sends-out=FILE` kept and tells, per run, what
// each steady refusal of a fixed window of 30 per second came from. The sends are replayed as
// serve-mock's fixed window counts them (a window starts at the first send after the last one
// ended; it misses a refusal where arrivals differ from send times); for each replayed refusal:
// the sends in the second up to it, the rate over the 5 s before it, and the gap before the
// window's first send against the mean gap (a late opener). Also the steady sends' share of gaps
// under half the mean gap ("bunched") and, of those, the share between sends of different workers.
//   node bench/fleet-sends.mjs FILE
import { readFileSync } from 'node:fs';

const CAPACITY = 30;
const WINDOW_MS = 1000;

/** Every send of a run in time order with its worker, each marked refused or not by the replayed window. */
function replay(byWorker) {
  const sends = byWorker
    .flatMap((times, worker) => times.map((t) => ({ t, worker })))
    .sort((a, b) => a.t - b.t);
  let [start, n, opener] = [Number.NEGATIVE_INFINITY, 0, 0];
  return sends.map((send, i) => {
    if (send.t - start >= WINDOW_MS) [start, n, opener] = [send.t, 0, i];
    n++;
    return { ...send, refused: n > CAPACITY, opener };
  });
}

/** One refusal described: when (s into the run), the rate before it, the opener's gap against the mean. */
function describe(sends, i, origin) {
  const send = sends[i];
  const before = sends.filter((s) => s.t < send.t && s.t >= send.t - 5000).length / 5;
  const lastSecond = sends.filter((s) => s.t <= send.t && s.t > send.t - 1000).length;
  const open = sends[send.opener];
  const openerGap = send.opener > 0 ? open.t - sends[send.opener - 1].t : Number.NaN;
  const at = ((send.t - origin) / 1000).toFixed(2);
  return `${at} s: ${lastSecond} sent in the second to it, ${before.toFixed(1)}/s over the 5 s before; window opened by a send ${openerGap.toFixed(0)} ms after the one before (mean ${(1000 / before).toFixed(0)})`;
}

for (const line of readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean)) {
  const run = JSON.parse(line);
  const sends = replay(run.sends);
  const origin = sends[0]?.t ?? 0;
  const steady = sends.filter((s) => s.t >= run.steadyAt && s.t < run.steadyTo);
  const gaps = steady
    .slice(1)
    .map((s, i) => ({ gap: s.t - steady[i].t, mixed: s.worker !== steady[i].worker }));
  const mean = (steady.at(-1).t - steady[0].t) / gaps.length;
  const bunched = gaps.filter((g) => g.gap < mean / 2);
  const refusals = sends
    .map((s, i) => [s, i])
    .filter(([s]) => s.refused && s.t >= run.steadyAt && s.t < run.steadyTo);
  const share = (part, whole) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;
  console.log(
    `${run.workers} workers: steady ${steady.length} sends, bunched ${share(bunched.length, gaps.length)} (of them between workers ${share(bunched.filter((g) => g.mixed).length, bunched.length)}), replayed refusals ${refusals.length}`,
  );
  for (const [, i] of refusals) console.log(`  ${describe(sends, i, origin)}`);
}
