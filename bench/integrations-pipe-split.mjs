// Where the cold trace's "pipe" goes (bench/integrations-cold-trace.mjs): the same crawler and
// hidden server for --seconds, each request timed at its admission (the moment ratewise's client
// hands it to got-scraping), at the end of got's beforeRequest hooks (got-scraping's browser
// headers included: the last point a hook could hold it), when Node's ClientRequest flushed it to
// the socket, and when the server — in this process, as the benches run it — began handling it.
// For the first pause: its refusals admitted before it and reaching the server after it, split
// into those three stretches; and the lag of the refusal that paused, from its arrival at the
// server to its head at the client (ratewise's stream() resolving) to the pause.
//
//   npm run build && node bench/integrations-pipe-split.mjs [--seconds 4] [--runs 3]
import dc from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import { GotScrapingHttpClient, log } from '@crawlee/core';
import { keepSessionsOn429, ratewiseCrawlee, retryHttp429 } from '../dist/integrations/crawlee.js';
import { seededRandom } from '../dist/random.js';
import { createModel } from '../dist/sim/models/index.js';
import { startMockServer } from '../dist/testing/index.js';
import { toppedUpCrawler } from './crawlee-topped-up.mjs';
import { HIDDEN_SERVER } from './integrations-split.mjs';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '4' }, runs: { type: 'string', default: '3' } },
});
log.setLevel(log.LEVELS.OFF);

/** Per URL path, one entry per attempt of each mark (a retried URL has several). */
let marks = new Map();
let t0 = 0;
const mark = (path, name) => {
  const key = path.split('?')[0];
  if (!marks.has(key)) marks.set(key, {});
  const entry = marks.get(key);
  entry[name] ??= [];
  entry[name].push(performance.now() - t0);
};
dc.subscribe('http.client.request.start', ({ request }) => {
  request.once('finish', () => mark(request.path, 'flushed'));
});
dc.subscribe('http.server.request.start', ({ request }) => mark(request.url, 'server'));

for (let run = 1; run <= Number(values.runs); run++) {
  const { pauses, statuses } = await tracedRun();
  console.log(`Run ${run}: pauses at ${pauses.map((p) => (p / 1000).toFixed(3)).join(', ')} s`);
  console.log(report(pauses[0], statuses));
}

/** One crawl; the pauses' times and each arrival's status, by path. */
async function tracedRun() {
  marks = new Map();
  t0 = performance.now();
  const statuses = new Map();
  const base = createModel(HIDDEN_SERVER.model, HIDDEN_SERVER.params, seededRandom('server:1'));
  const model = {
    name: base.name,
    capacity: (ms) => base.capacity(ms),
    finish: (request, ms) => base.finish?.(request, ms),
    arrive(request) {
      const reply = base.arrive(request);
      const key = request.path.split('?')[0];
      statuses.set(key, [...(statuses.get(key) ?? []), reply.status]);
      return reply;
    },
  };
  const pauses = [];
  const ratewise = await ratewiseCrawlee({
    maxConcurrency: 40,
    httpClient: timed(new GotScrapingHttpClient()),
    events: (e) => e.type === 'pause' && pauses.push(performance.now() - t0),
  });
  const server = await startMockServer({ model });
  const { crawler, start } = toppedUpCrawler(server.url, {
    httpClient: ratewise.httpClient,
    ...keepSessionsOn429,
    ...retryHttp429,
    ...ratewise.poolOptions,
  });
  const timer = setTimeout(() => crawler.stop(), Number(values.seconds) * 1000);
  await start();
  clearTimeout(timer);
  await ratewise.close();
  await server.close();
  return { pauses, statuses };
}

/** got-scraping marked at the call (admission), after every beforeRequest hook, and at the head. */
function timed(inner) {
  return {
    sendRequest: (request) => inner.sendRequest(request),
    stream(request, onRedirect) {
      const path = new URL(request.url).pathname;
      mark(path, 'admitted');
      const hooked = () => void mark(path, 'hooked');
      const hooks = {
        ...request.hooks,
        beforeRequest: [...(request.hooks?.beforeRequest ?? []), hooked],
      };
      return inner.stream({ ...request, hooks }, onRedirect).then((response) => {
        mark(path, 'head');
        return response;
      });
    },
  };
}

/** The first pause's refusals in the pipe, split, and the lag of the refusal that paused. */
function report(pause, statuses) {
  if (pause === undefined) return 'no pause\n';
  const piped = [];
  let first;
  for (const [path, entry] of marks) {
    (statuses.get(path) ?? []).forEach((status, i) => {
      const at = (name) => entry[name]?.[i];
      if (status !== 429) return;
      if (at('server') <= pause && (first === undefined || at('server') < first.server))
        first = { server: at('server'), head: at('head') };
      if (at('server') > pause && at('server') < pause + 1000 && at('admitted') < pause)
        piped.push([
          at('hooked') - at('admitted'),
          at('flushed') - at('hooked'),
          at('server') - at('flushed'),
          at('hooked') > pause,
        ]);
    });
  }
  const span = (k) =>
    piped.length
      ? `${Math.round(Math.min(...piped.map((p) => p[k])))}–${Math.round(Math.max(...piped.map((p) => p[k])))}`
      : '-';
  const lines = [
    `- ${piped.length} refused in the pipe: admitted → hooks done ${span(0)} ms, hooks done → flushed ${span(1)} ms, flushed → at the server ${span(2)} ms; hooks done after the pause: ${piped.filter((p) => p[3]).length}`,
  ];
  if (first)
    lines.push(
      `- the first refusal: at the server → head at the client ${Math.round(first.head - first.server)} ms, head → pause ${Math.round(pause - first.head)} ms`,
    );
  return `${lines.join('\n')}\n`;
}
