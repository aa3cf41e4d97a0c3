// Crawlee and axios with and without ratewise, side by side, against the demo server
// (docs/server-models.md) on loopback: a hidden fixed window of 30 req/s, 350 ms pages,
// 429 + Retry-After: 1 beyond it. 40-way demand for --seconds each (default 60); a fresh server per run.
//
//   npm run build && node bench/integrations-crawlee-axios.mjs [--seconds 60] [--only crawlee|axios|client] [--timeline]
//
// Without ratewise each library runs as it comes: Crawlee's HttpCrawler (got-scraping, its
// session pool retiring a session on 429 and retrying at once, 3 retries; a pool of 40 tasks),
// axios with axios-retry's defaults (3 retries, no delay). With ratewise: Crawlee on ratewise's
// httpClient with poolOptions, keepSessionsOn429 and retryHttp429 (and once more with Crawlee's
// own autoscaled pool); axios on ratewise's adapter with axios-retry's retryDelay set to the
// adapter's; last, ratewise's own client.fetch, to tell what the controller does from what an
// integration adds. Counted by the server over the run window: ok (200), refused (429), ok as a
// share of capacity; the cold start (the seconds before the first that served ≥ 90 % of
// capacity) and the steady state after it; from the controller sampled every 100 ms, what it
// held back (paced, limited or paused below capacity) and what it allowed that the client did
// not send; the process's CPU per request (client and in-process server), its event-loop delay;
// then where each run with ratewise missed capacity (bench/integrations-split.mjs). --timeline
// prints each run's seconds (the controller's limit, pacing rate, paused share, what it allowed)
// and its decisions (pauses, pacing-rate changes, soft-throttling alarms) with their reasons.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { GotScrapingHttpClient, log } from '@crawlee/core';
import axios from 'axios';
import axiosRetry from 'axios-retry';
import { createClient } from '../dist/client/client.js';
import { ratewiseAdapter } from '../dist/integrations/axios.js';
import { keepSessionsOn429, ratewiseCrawlee, retryHttp429 } from '../dist/integrations/crawlee.js';
import { seededRandom } from '../dist/random.js';
import { createModel } from '../dist/sim/models/index.js';
import { startMockServer } from '../dist/testing/index.js';
import { toppedUpCrawler } from './crawlee-topped-up.mjs';
import { HIDDEN_SERVER, missedSplit, splitHeader, splitRow } from './integrations-split.mjs';
import {
  capacitySplit,
  decisionLog,
  marking,
  markingAdapter,
  percentile,
  sampleRegistry,
  timedModel,
  timelineTable,
} from './integrations-timeline.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    only: { type: 'string' },
    timeline: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const DEMAND = 40;
const { rate: CAPACITY, latencyMs: LATENCY_MS } = HIDDEN_SERVER.params;
/** 40 tasks from the start, whatever the machine's load (without ratewise: the 40-way demand). */
const fixedPool = {
  minConcurrency: DEMAND,
  maxConcurrency: DEMAND,
  autoscaledPoolOptions: { desiredConcurrency: DEMAND },
};

log.setLevel(log.LEVELS.OFF);

const runs = [
  ['Crawlee HttpCrawler', 'without', crawleeRun(false)],
  ['Crawlee HttpCrawler', 'ratewise', crawleeRun(true)],
  ["Crawlee HttpCrawler, Crawlee's default pool", 'ratewise', crawleeRun(true, false)],
  ['axios + axios-retry', 'without', axiosRun(false)],
  ['axios + axios-retry', 'ratewise', axiosRun(true)],
  ['client.fetch (reference)', 'ratewise', fetchRun()],
].filter(([name]) => !values.only || name.toLowerCase().startsWith(values.only));

console.log(
  `node ${process.version}; hidden limit ${CAPACITY} req/s (fixed window), 350 ms pages, 429 + Retry-After: 1; ${DEMAND}-way demand, ${SECONDS} s per run\n`,
);
console.log(
  '| library | control | ok | ok/s | % of capacity | 429s | refused share | other | most in flight | wall s | first s ≥ 90 % | missed cold | missed steady | steady % of capacity | held back by the controller | allowed, not sent | admitted → arrival p50 / p99 ms | CPU ms per request | event-loop delay p50 / p99 ms |',
);
console.log(
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
const timelines = [];
const splits = [];
for (const [name, control, run] of runs) {
  const timed = timedModel(
    createModel(HIDDEN_SERVER.model, HIDDEN_SERVER.params, seededRandom('server:1')),
  );
  const server = await startMockServer({ model: timed.model });
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  let window;
  let sampler;
  const decisions = decisionLog(started);
  await run(server.url, {
    events: decisions.sink,
    watch: (registry) => {
      sampler = sampleRegistry(registry);
    },
    windowEnds: async () => {
      window = server.stats(); // the run window ends here; what is in flight finishes after
      sampler?.stop();
    },
  });
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  loopDelay.disable();
  await server.close();
  const samples = sampler?.samples;
  const split = capacitySplit(timed.seconds, CAPACITY, SECONDS, samples, LATENCY_MS);
  if (samples) {
    const missed = missedSplit(timed.seconds, CAPACITY, SECONDS, samples, LATENCY_MS);
    splits.push(splitRow(`${name}, ${control}`, missed));
  }
  timelines.push(
    timelineTable(
      `${name}, ${control}`,
      timed.seconds.slice(0, SECONDS),
      samples,
      CAPACITY,
      LATENCY_MS,
    ) + decisions.render(SECONDS),
  );
  const ok = window.byStatus['200'] ?? 0;
  const refused = window.byStatus['429'] ?? 0;
  const other = Object.entries(window.byStatus)
    .filter(([status]) => status !== '200' && status !== '429')
    .reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `| ${name} | ${control} | ${ok} | ${(ok / SECONDS).toFixed(1)} | ${((100 * ok) / (CAPACITY * SECONDS)).toFixed(1)} % | ${refused} | ${((100 * refused) / Math.max(1, ok + refused)).toFixed(1)} % | ${other} | ${window.maxInFlight} | ${wall.toFixed(1)} | ${split.warmSeconds} | ${split.coldMissed} | ${split.steadyMissed} | ${(100 * split.steadyShare).toFixed(1)} % | ${split.heldBack ?? '-'} | ${split.unsent ?? '-'} | ${sendDelay(timed.sendDelays)} | ${cpuPerRequest(cpu, window)} | ${ms(loopDelay.percentile(50))} / ${ms(loopDelay.percentile(99))} |`,
  );
}
console.log(
  `\nWhere the missed capacity went (with ratewise)\n\n${splitHeader()}\n${splits.join('\n')}`,
);
if (values.timeline) console.log(timelines.join('\n'));

/** Nanoseconds as whole milliseconds. */
function ms(ns) {
  return Math.round(ns / 1e6);
}

/** The process's CPU time (client and in-process server) per request the server saw. */
function cpuPerRequest(cpu, window) {
  const requests = Object.values(window.byStatus).reduce((sum, n) => sum + n, 0);
  return ((cpu.user + cpu.system) / 1000 / Math.max(1, requests)).toFixed(2);
}

function sendDelay(delays) {
  if (delays.length === 0) return '-';
  return `${percentile(delays, 50)} / ${percentile(delays, 99)}`;
}

/** Crawlee's HttpCrawler (see `toppedUpCrawler`), stopped when the window ends. */
function crawleeRun(withRatewise, pool = true) {
  return async (base, { events, watch, windowEnds }) => {
    const ratewise = withRatewise
      ? await ratewiseCrawlee({
          events,
          maxConcurrency: DEMAND,
          httpClient: marking(new GotScrapingHttpClient()),
        })
      : undefined;
    if (ratewise) watch(ratewise.registry);
    const { crawler, start } = toppedUpCrawler(base, {
      ...(ratewise
        ? { httpClient: ratewise.httpClient, ...keepSessionsOn429, ...retryHttp429 }
        : {}),
      ...(ratewise ? (pool ? ratewise.poolOptions : {}) : fixedPool),
    });
    let ended = false;
    const end = async () => {
      if (ended) return;
      ended = true;
      await windowEnds();
    };
    const timer = setTimeout(async () => {
      await end();
      crawler.stop();
    }, SECONDS * 1000);
    await start();
    clearTimeout(timer);
    await end(); // ran out early after all: the window is what it took (see wall s)
    await ratewise?.close();
  };
}

/** ratewise's own client, 40 workers: what the controller does with no library around it. */
function fetchRun() {
  return async (base, { events, watch, windowEnds }) => {
    const client = createClient({ maxConcurrency: DEMAND, events });
    watch(client.registry);
    const until = performance.now() + SECONDS * 1000;
    let next = 0;
    await Promise.all(
      Array.from({ length: DEMAND }, async () => {
        while (performance.now() < until) {
          await client
            .fetch(`${base}/item/${next++}`)
            .then((r) => r.arrayBuffer())
            .catch(() => undefined);
        }
      }),
    );
    await windowEnds();
    await client.close();
  };
}

/** 40 workers looping over URLs with axios (+ axios-retry) for the run window. */
function axiosRun(withRatewise) {
  return async (base, { events, watch, windowEnds }) => {
    const adapter = withRatewise
      ? ratewiseAdapter(axios, {
          events,
          maxConcurrency: DEMAND,
          adapter: markingAdapter(axios.getAdapter(axios.defaults.adapter), (c) => axios.getUri(c)),
        })
      : undefined;
    if (adapter) watch(adapter.registry);
    const api = axios.create({ ...(adapter ? { adapter } : {}), timeout: 30_000 });
    axiosRetry(api, adapter ? { retries: 3, retryDelay: adapter.retryDelay } : {});
    const until = performance.now() + SECONDS * 1000;
    let next = 0;
    await Promise.all(
      Array.from({ length: DEMAND }, async () => {
        while (performance.now() < until) {
          await api.get(`${base}/item/${next++}`).catch(() => undefined);
        }
      }),
    );
    await windowEnds();
    await adapter?.close();
  };
}
