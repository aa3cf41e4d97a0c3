// The controller's share of the integrations benchmark, in virtual time: the benchmark's hidden
// server (HIDDEN_SERVER, the simulator's scenario reference-000) and ratewise's default
// controller with its client's retry loop (the simulator's `ratewise` strategy, 40 workers,
// maxConcurrency 40), for --seconds per seed. No client CPU, no event loop, no network: what is
// missed here is the controller's alone. --arrival-jitter delays each request's arrival at the
// server by 0..N ms (seeded), as a loaded process and loopback do (bench/integrations-crawlee-
// axios.mjs measures admitted → arrival p50 1 ms, p99 6–170 ms); --report-jitter delays each
// response's report by 0..N ms after it completed (a library reading the body, a busy loop). Prints, per seed, the server's figures and the same split as the loopback bench
// (cold start, refusal seconds, paced below capacity, allowed but not served, held pace);
// --timeline adds each run's seconds and decisions. --latency MS gives the hidden server that page
// time instead of its 350 ms (the fleet bench's serve-mock answers in 100 ms).
//
//   npm run build && node bench/integrations-sim.mjs [--seconds 60] [--seeds 1-10] [--arrival-jitter 0] [--report-jitter 0] [--latency 350] [--timeline]
import { parseArgs } from 'node:util';
import { seededRandom } from '../dist/random.js';
import { createModel } from '../dist/sim/models/index.js';
import { simulateModel } from '../dist/sim/simulate.js';
import { ratewiseStrategy } from '../dist/sim/strategies/index.js';
import { HIDDEN_SERVER, missedSplit, splitHeader, splitRow } from './integrations-split.mjs';
import { decisionLog, timedModel, timelineTable } from './integrations-timeline.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seeds: { type: 'string', default: '1-10' },
    'arrival-jitter': { type: 'string', default: '0' },
    'report-jitter': { type: 'string', default: '0' },
    latency: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const SERVER =
  values.latency === undefined
    ? HIDDEN_SERVER
    : { ...HIDDEN_SERVER, params: { ...HIDDEN_SERVER.params, latencyMs: Number(values.latency) } };
const SECONDS = Number(values.seconds);
const JITTER_MS = {
  arrival: Number(values['arrival-jitter']),
  report: Number(values['report-jitter']),
};
const [first, last = first] = values.seeds.split('-').map(Number);
const DEMAND = 40;
const { rate: CAPACITY, latencyMs: LATENCY_MS } = SERVER.params;

console.log(
  `virtual time; ${SERVER.model} ${JSON.stringify(SERVER.params)}; ratewise defaults, ${DEMAND} workers, maxConcurrency ${DEMAND}; ${SECONDS} s per seed; arrival jitter 0–${JITTER_MS.arrival} ms, report jitter 0–${JITTER_MS.report} ms\n`,
);
const rows = [];
const splits = [];
const timelines = [];
for (let seed = first; seed <= last; seed++) {
  const timed = timedModel(
    createModel(SERVER.model, SERVER.params, seededRandom(`server:${seed}`)),
  );
  const events = [];
  const log = decisionLog(0);
  const run = await simulateModel(
    timed.model,
    {
      workload: { workers: DEMAND, durationMs: SECONDS * 1000 },
      maxConcurrency: DEMAND,
      timeoutMs: 30_000,
    },
    jittered(ratewiseStrategy(), JITTER_MS, seed),
    {
      seed,
      events: (event) => {
        events.push(event);
        log.sink(event);
      },
    },
  );
  const seconds = timed.seconds.slice(0, SECONDS);
  const samples = samplesFromEvents(events, SECONDS);
  const ok = sum(seconds, 'ok');
  const refused = sum(seconds, 'refused');
  rows.push(
    `| ${seed} | ${ok} | ${((100 * ok) / (CAPACITY * SECONDS)).toFixed(1)} % | ${refused} | ${((100 * refused) / Math.max(1, ok + refused)).toFixed(1)} % | ${run.log.maxInflight} |`,
  );
  const split = missedSplit(seconds, CAPACITY, SECONDS, samples, LATENCY_MS);
  splits.push(split);
  timelines.push(
    timelineTable(`seed ${seed}`, seconds, samples, CAPACITY, LATENCY_MS) + log.render(SECONDS),
  );
}
console.log('| seed | ok | % of capacity | 429s | refused share | most in flight |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
console.log(rows.join('\n'));
console.log(`\n${splitHeader()}`);
splits.forEach((split, i) => {
  console.log(splitRow(`seed ${first + i}`, split));
});
if (values.timeline) console.log(timelines.join('\n'));

function sum(list, key) {
  return list.reduce((total, s) => total + s[key], 0);
}

/**
 * `strategy` with each request held back 0..`arrival` ms (seeded) before it reaches the server,
 * and its response handed back 0..`report` ms after it completed (arrivals stay in time order,
 * as the virtual clock fires them): what a busy event loop, loopback and a library's own
 * response handling add between the controller and the server.
 */
function jittered(strategy, { arrival, report }, seed) {
  if (arrival === 0 && report === 0) return strategy;
  const random = seededRandom(`jitter:${seed}`);
  return {
    ...strategy,
    run(context) {
      const { clock, transport } = context;
      const send = async (request) => {
        if (arrival > 0) await clock.sleep(random.next() * arrival);
        const exchange = await transport.send(request);
        if (report > 0) await clock.sleep(random.next() * report);
        return exchange;
      };
      return strategy.run({ ...context, transport: { send } });
    },
  };
}

/**
 * The controller's state every 100 ms of virtual time, rebuilt from its events (each carries
 * the limit, rate, in flight and queued after it; a pause says for how long), summarised per
 * second as bench/integrations-timeline.mjs's sampleRegistry does on the real clock.
 */
function samplesFromEvents(events, seconds) {
  const samples = [];
  let next = 0;
  let state = { limit: 0, rate: Number.POSITIVE_INFINITY, inflight: 0, queued: 0 };
  let pausedUntil = Number.NEGATIVE_INFINITY;
  for (let second = 0; second < seconds; second++) {
    const tick = [];
    for (let at = second * 1000 + 100; at <= (second + 1) * 1000; at += 100) {
      while (next < events.length && events[next].t <= at) {
        const event = events[next++];
        state = {
          limit: event.limit,
          rate: event.rate ?? Number.POSITIVE_INFINITY,
          inflight: event.inflight,
          queued: event.queued,
        };
        const pause = /paused (\d+) ms/.exec(event.reason);
        if (event.type === 'pause' && pause) pausedUntil = event.t + Number(pause[1]);
      }
      tick.push({ ...state, paused: at < pausedUntil });
    }
    samples.push({
      limit: mean(tick, 'limit'),
      rate: tick.every((s) => Number.isFinite(s.rate))
        ? mean(tick, 'rate')
        : Number.POSITIVE_INFINITY,
      pausedShare: tick.filter((s) => s.paused).length / tick.length,
      inflight: state.inflight,
      queued: state.queued,
    });
  }
  return samples;
}

function mean(list, key) {
  return list.reduce((total, s) => total + s[key], 0) / list.length;
}
