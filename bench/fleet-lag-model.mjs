// What the fleet's delays cost one rate algorithm, in virtual time (no Redis, no sockets): one
// AdaptiveRate (dist/) paces a model fixed window of 30 req/s (1 s windows, 200 after 100 ms,
// 429 at once with Retry-After to the window's end, in whole seconds). `--order local`: each
// outcome is learned as it comes (one process); `gathered`: successes are learned in batches
// every 250 ms and a refusal at once, ahead of the successes answered before it (a rate lease
// before this session's fix); `ordered`: the refusal brings them. `--lag ms`: the pacer runs at
// the rate learned that long ago (a share's renewal, the learner's look, a reserved schedule).
// `--batch ms`: how long successes are gathered before they are learned (250). `--workers n`: the
// sends are spread over n workers, each gathering its own successes on its own batch timer, so a
// refusal brings only its worker's (`ordered`); `complete`: a refusal is learned one batch time
// late, with every worker's successes answered before it.
// `--jitter ms`: each send reaches the server up to that much late (uniform, seeded by `--seed`:
// an event loop's and a socket's delay), and its answer as much later; `--seeds n` runs seeds
// 1..n and prints each run and the spread (the real bench's run-to-run spread, in virtual time).
//   node bench/fleet-lag-model.mjs [--order ordered] [--lag 0] [--batch 250] [--workers 1] [--seconds 300]
//     [--from 10]   (the steady state counted from this second: 20 with --seconds 45 is fleet.mjs's)
//     [--jitter 0] [--seed 1] [--seeds 1]
import { parseArgs } from 'node:util';
import { AdaptiveRate } from '../dist/algorithms/adaptive-rate.js';

const { values } = parseArgs({
  options: {
    order: { type: 'string', default: 'ordered' },
    lag: { type: 'string', default: '0' },
    batch: { type: 'string', default: '250' },
    workers: { type: 'string', default: '1' },
    flush: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '300' },
    from: { type: 'string', default: '10' },
    jitter: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    seeds: { type: 'string', default: '1' },
  },
});
const jitterMs = Number(values.jitter);

/** A seeded uniform [0, 1) (mulberry32): the model reads no `Math.random`. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const [order, lagMs, seconds] = [values.order, Number(values.lag), Number(values.seconds)];
const batchMs = Number(values.batch);
const flushMs = Number(values.flush);
/** One run of the model with `seed`: its steady ok/s, refusals and final ceiling and margin. */
function run(seed) {
  const random = seeded(seed);
  const rate = new AdaptiveRate();
  /** Rates learned, as [since, rate]: the pacer reads the one in force `lagMs` ago. */
  const learnedRates = [[-Infinity, Infinity]];
  const pacedRate = (at) => learnedRates.findLast(([since]) => since <= at - lagMs)[1];
  const events = [];
  const at = (time, run) => {
    events.push({ time, run });
    events.sort((a, b) => a.time - b.time);
  };
  const learn = (sample) => {
    rate.onSample(sample);
    if (rate.rate !== learnedRates.at(-1)[1]) learnedRates.push([sample.at, rate.rate]);
  };
  /** Each worker's gathered successes, and whether its batch timer runs. */
  const workers = Array.from({ length: Number(values.workers) }, () => ({
    gathered: [],
    flushing: false,
  }));
  const learnAll = (samples) => {
    for (const sample of samples.sort((a, b) => a.at - b.at)) learn(sample);
  };
  const flush = (worker) => learnAll(worker.gathered.splice(0));
  const deliver = (sample) => {
    if (order === 'local') return learn(sample);
    const worker = workers[sample.worker];
    if (sample.signal.kind !== 'ok') {
      // The fleet pauses at once (Redis), whenever the cut is learned.
      heardPause = Math.max(heardPause, sample.at + (sample.signal.retryAfterMs ?? 0));
      const all = () => learnAll([sample, ...workers.flatMap((w) => w.gathered.splice(0))]);
      if (order === 'complete') return at(sample.at + batchMs, all);
      if (order === 'flushed') return at(sample.at + flushMs, all);
      if (order === 'ordered') flush(worker);
      return learn(sample);
    }
    worker.gathered.push(sample);
    if (worker.flushing) return;
    worker.flushing = true;
    at(sample.at + batchMs, () => {
      worker.flushing = false;
      flush(worker);
    });
  };
  let sends = 0;
  let heardPause = 0;
  const okBySecond = new Array(seconds + 1).fill(0);
  let [now, lastSend, windowStart, admitted, refusals, inflight] = [
    0,
    -Infinity,
    -Infinity,
    0,
    0,
    0,
  ];
  while (now < seconds * 1000) {
    const paced = pacedRate(now);
    let sendAt = Math.max(now, rate.pausedUntil, heardPause);
    if (paced !== Infinity) sendAt = Math.max(sendAt, lastSend + 1000 / paced);
    if (inflight >= 8) sendAt = Infinity;
    if (events.length > 0 && events[0].time <= sendAt) {
      const event = events.shift();
      now = event.time;
      event.run();
      continue;
    }
    [now, lastSend] = [sendAt, sendAt];
    const sample = { sentAt: now, inflight: ++inflight, outstanding: 0 };
    sample.worker = sends++ % workers.length;
    // It reaches the server up to jitterMs late: the window counts it then (in arrival order).
    const arrival = now + random() * jitterMs;
    at(arrival, () => serve(sample, arrival));
  }
  /** The server's fixed window at `arrival`: 200 after 100 ms, or 429 at once to the window's end. */
  function serve(sample, arrival) {
    if (arrival - windowStart >= 1000) [windowStart, admitted] = [arrival, 0];
    if (admitted >= 30) {
      refusals++;
      const retryAfterMs = Math.ceil((windowStart + 1000 - arrival) / 1000) * 1000;
      const signal = { kind: 'throttled', reason: '429', status: 429, retryAfterMs };
      const refusedAt = arrival + 1;
      at(refusedAt, () => {
        inflight--;
        deliver({ ...sample, at: refusedAt, signal });
      });
      return;
    }
    admitted++;
    const answeredAt = arrival + 100;
    at(answeredAt, () => {
      inflight--;
      okBySecond[Math.floor(answeredAt / 1000)]++;
      deliver({ ...sample, at: answeredAt, signal: { kind: 'ok', reason: '200', status: 200 } });
    });
  }
  const from = Number(values.from);
  const steady = okBySecond.slice(from, seconds).reduce((a, b) => a + b, 0) / (seconds - from);
  const state = rate.snapshot({ monotonic: now, wall: now });
  return {
    steady,
    from,
    refusals,
    ceiling: state.ceiling,
    margin: state.margin,
    workers: workers.length,
  };
}

const seeds = Number(values.seeds);
const shares = [];
for (let seed = Number(values.seed); seed < Number(values.seed) + seeds; seed++) {
  const r = run(seed);
  shares.push(r.steady / 30);
  console.log(
    `order ${order}, lag ${lagMs} ms, batches ${batchMs} ms, ${r.workers} workers, jitter ${jitterMs} ms, seed ${seed}: ${r.steady.toFixed(2)} ok/s over ${r.from}-${seconds} s (${((100 * r.steady) / 30).toFixed(1)} % of 30), ${r.refusals} refusals, ceiling ${r.ceiling.toFixed(2)}, margin ${r.margin.toFixed(4)}`,
  );
}
if (seeds > 1) {
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  shares.sort((a, b) => a - b);
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  console.log(
    `${seeds} seeds: steady mean ${pct(mean)}, min ${pct(shares[0])}, median ${pct(shares[Math.floor(shares.length / 2)])}, max ${pct(shares.at(-1))}; below 95 %: ${shares.filter((x) => x < 0.95).length}`,
  );
}
