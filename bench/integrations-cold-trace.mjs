// The cold start of bench/integrations-crawlee-axios.mjs's "Crawlee HttpCrawler, ratewise" row,
// request by request: the same hidden server (a fixed window of 30 req/s, 350 ms pages, 429 +
// Retry-After: 1) and crawler for --seconds (8 by default), --runs times. For each pause the
// controller took, the refusals it stands for, split by when they reached the server: before
// the controller paused (sent before it heard the refusal that paused it: the report's lag and
// the burst it let through) and after it though admitted before it (in the pipe: admitted, not
// yet on the wire — got-scraping's header generation and a busy event loop stand between the
// two); the lag from the first refused arrival to the pause; and the pacing rate at the
// pause's end ("unpaced": the scope resumed at its concurrency limit alone). --requests also
// prints every refused arrival and every pause and pacing decision, timed from the run's start.
//
//   npm run build && node bench/integrations-cold-trace.mjs [--seconds 8] [--runs 3] [--requests]
import { parseArgs } from 'node:util';
import { GotScrapingHttpClient, log } from '@crawlee/core';
import { keepSessionsOn429, ratewiseCrawlee, retryHttp429 } from '../dist/integrations/crawlee.js';
import { seededRandom } from '../dist/random.js';
import { createModel } from '../dist/sim/models/index.js';
import { startMockServer } from '../dist/testing/index.js';
import { toppedUpCrawler } from './crawlee-topped-up.mjs';
import { HIDDEN_SERVER } from './integrations-split.mjs';
import { marking } from './integrations-timeline.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '3' },
    requests: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const DEMAND = 40;

log.setLevel(log.LEVELS.OFF);

console.log(
  `node ${process.version}; hidden limit ${HIDDEN_SERVER.params.rate} req/s (fixed window), 350 ms pages, 429 + Retry-After: 1; Crawlee with ratewise, ${DEMAND}-way demand, ${SECONDS} s per run\n`,
);
for (let run = 1; run <= Number(values.runs); run++) {
  const trace = await tracedRun();
  console.log(`Run ${run}: CPU ${trace.cpuMs.toFixed(0)} ms, ${trace.arrivals} requests\n`);
  console.log(pauseTable(trace));
  if (values.requests) console.log(`\n${requestLines(trace).join('\n')}`);
  console.log('');
}

/** One crawl: the server's refused arrivals and the controller's pauses and pacing decisions. */
async function tracedRun() {
  const started = performance.now();
  const wallStarted = Date.now();
  const refused = [];
  let arrivals = 0;
  const model = arrivalsOf(
    createModel(HIDDEN_SERVER.model, HIDDEN_SERVER.params, seededRandom('server:1')),
    (request, status) => {
      arrivals++;
      if (status !== 429) return;
      const admitted = Number(/[?&]admitted=(\d+)/.exec(request.path)?.[1]);
      refused.push({ at: request.wallAt - wallStarted, admitted: admitted - wallStarted });
    },
  );
  const decisions = [];
  const events = (event) => {
    if (event.type === 'pause' || event.type === 'rate')
      decisions.push({ at: event.t - started, type: event.type, reason: event.reason });
  };
  const server = await startMockServer({ model });
  const cpu = process.cpuUsage();
  await crawl(server.url, events);
  const { user, system } = process.cpuUsage(cpu);
  await server.close();
  return { refused, decisions, arrivals, cpuMs: (user + system) / 1000 };
}

/** Wraps a server model so `seen(request, status)` hears every arrival. */
function arrivalsOf(model, seen) {
  return {
    name: model.name,
    capacity: (ms) => model.capacity(ms),
    arrive(request) {
      const reply = model.arrive(request);
      seen(request, reply.status);
      return reply;
    },
    finish: (request, ms) => model.finish?.(request, ms),
  };
}

/** The benchmark's Crawlee row with ratewise (its pool of 40 tasks), stopped after --seconds. */
async function crawl(base, events) {
  const ratewise = await ratewiseCrawlee({
    events,
    maxConcurrency: DEMAND,
    httpClient: marking(new GotScrapingHttpClient()),
  });
  const { crawler, start } = toppedUpCrawler(base, {
    httpClient: ratewise.httpClient,
    ...keepSessionsOn429,
    ...retryHttp429,
    ...ratewise.poolOptions,
  });
  const timer = setTimeout(() => crawler.stop(), SECONDS * 1000);
  await start();
  clearTimeout(timer);
  await ratewise.close();
}

/**
 * Per pause: the refusals that reached the server from the previous pause's end (or the run's
 * start) up to it, and those after it, up to its end or the next pause, that were admitted
 * before it; the lag from the first of them to the pause; the pacing rate at its end.
 */
function pauseTable({ refused, decisions }) {
  const rows = [
    '| pause at s | refused before it | refused after it, admitted before it | first refusal → pause ms | pacing at its end |',
    '| ---: | ---: | ---: | ---: | --- |',
  ];
  const pauses = decisions.filter((d) => d.type === 'pause');
  let from = Number.NEGATIVE_INFINITY;
  for (const [i, pause] of pauses.entries()) {
    const until = Math.min(pauses[i + 1]?.at ?? Number.POSITIVE_INFINITY, pause.at + 1000);
    const before = refused.filter((r) => r.at > from && r.at <= pause.at);
    const piped = refused.filter((r) => r.at > pause.at && r.at < until && r.admitted < pause.at);
    const first = (before[0] ?? piped[0])?.at;
    const lag = first === undefined ? '-' : Math.round(pause.at - first);
    rows.push(
      `| ${(pause.at / 1000).toFixed(2)} | ${before.length} | ${piped.length} | ${lag} | ${pacingAt(decisions, pause.at + 1000)} |`,
    );
    from = until;
  }
  return rows.join('\n');
}

/** The pacing rate the latest rate decision before `at` left, from its reason (`a -> b/s on …`). */
function pacingAt(decisions, at) {
  const latest = decisions.filter((d) => d.type === 'rate' && d.at <= at).at(-1);
  return latest ? latest.reason.split(' -> ')[1].split(' on ')[0] : 'unpaced';
}

/** Every refused arrival and every decision, in time order. */
function requestLines({ refused, decisions }) {
  const lines = [
    ...refused.map((r) => ({
      at: r.at,
      line: `429 at the server, admitted ${Math.round(r.at - r.admitted)} ms before`,
    })),
    ...decisions.map((d) => ({ at: d.at, line: `${d.type}: ${d.reason}` })),
  ];
  return lines.sort((a, b) => a.at - b.at).map((l) => `- ${(l.at / 1000).toFixed(3)} s ${l.line}`);
}
