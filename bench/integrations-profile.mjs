// Where a Crawlee crawl's CPU goes per page, with and without ratewise: Crawlee's HttpCrawler
// (got-scraping, --tasks tasks, 40 by default: ~110 pages/s; 10: ~28 pages/s, the
// benchmark's rate) over --pages pages of a server that never refuses (350 ± 50 ms
// pages, in a child process so the CPU measured is the crawler's alone), a warm-up round then rounds alternating
// without / with ratewise (its httpClient, poolOptions, keepSessionsOn429 and retryHttp429).
// Each run is profiled with V8's sampling profiler (what `node --cpu-prof` records, started
// around the crawl only) and its self time summed by package: ratewise's own code, Crawlee's,
// got-scraping's and its header generator's, Node's internals, the garbage collector. Prints
// CPU ms per page (process.cpuUsage) and the profile's split, the median over --rounds;
// --profiles DIR also writes each run's .cpuprofile (open it in Chrome DevTools).
//
//   npm run build && node bench/integrations-profile.mjs [--pages 2000] [--rounds 3] [--tasks 40] [--profiles DIR]
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Configuration, log } from '@crawlee/core';
import { HttpCrawler } from '@crawlee/http';
import { keepSessionsOn429, ratewiseCrawlee, retryHttp429 } from '../dist/integrations/crawlee.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    tasks: { type: 'string', default: '40' },
    profiles: { type: 'string' },
  },
});
const PAGES = Number(values.pages);
const ROUNDS = Number(values.rounds);
const TASKS = Number(values.tasks);
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
log.setLevel(log.LEVELS.OFF);

const server = spawn(
  process.execPath,
  [
    `${DIST}cli/main.js`,
    'serve-mock',
    '--model',
    'healthy',
    '--latency',
    '350',
    '--param',
    'jitterMs=50',
    '--json',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const { url } = JSON.parse(await firstLine(server.stdout));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 250 });

const results = { without: [], ratewise: [] };
for (let round = 0; round <= ROUNDS; round++) {
  for (const control of ['without', 'ratewise']) {
    const urls = Array.from({ length: PAGES }, (_, i) => `${url}/${control}/${round}/${i}`);
    await session.post('Profiler.start');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const ok = await crawl(urls, control === 'ratewise');
    const wall = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const { profile } = await session.post('Profiler.stop');
    if (round === 0) continue; // warm-up: loading and compiling, not kept
    if (values.profiles) {
      await writeFile(`${values.profiles}/${control}-${round}.cpuprofile`, JSON.stringify(profile));
    }
    results[control].push({
      ok,
      pagesPerSecond: ok / wall,
      cpuMs: (used.user + used.system) / 1000 / ok,
      byPackage: selfTimeByPackage(profile, ok),
    });
  }
}
server.kill();
session.disconnect();
report();

/** Crawls `urls` with a pool of 40 tasks; resolves with the pages handled. */
async function crawl(urls, withRatewise) {
  const ratewise = withRatewise ? await ratewiseCrawlee({ maxConcurrency: TASKS }) : undefined;
  let handled = 0;
  const crawler = new HttpCrawler(
    {
      ...(ratewise
        ? {
            httpClient: ratewise.httpClient,
            ...ratewise.poolOptions,
            ...keepSessionsOn429,
            ...retryHttp429,
          }
        : {
            minConcurrency: TASKS,
            maxConcurrency: TASKS,
            autoscaledPoolOptions: { desiredConcurrency: TASKS },
          }),
      additionalMimeTypes: ['text/plain'],
      requestHandler: async () => {
        handled++;
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  await crawler.run(urls);
  await ratewise?.close();
  return handled;
}

/**
 * The profile's self time in ms per page, by who owns the code that ran: Node's internals and
 * native code are charged to the nearest package (or ratewise) that called them, so a socket
 * write counts for the client that wrote and a `ps` spawned for the Crawlee that asked; the
 * profiler's own work is left out.
 */
function selfTimeByPackage(profile, pages) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const owners = new Map();
  const ownerOf = (id) => {
    if (!owners.has(id)) {
      const own = codeOwner(nodes.get(id).callFrame);
      const up = parent.get(id);
      owners.set(
        id,
        own === undefined && up !== undefined ? ownerOf(up) : (own ?? 'node internals'),
      );
    }
    return owners.get(id);
  };
  const totals = {};
  profile.samples.forEach((id, i) => {
    const who = ownerOf(id);
    totals[who] = (totals[who] ?? 0) + profile.timeDeltas[i] / 1000;
  });
  delete totals.profiler;
  for (const who of Object.keys(totals)) totals[who] /= pages;
  return totals;
}

/** ratewise, a package under node_modules, a V8 pseudo-frame, or `undefined` for Node's own and native code. */
function codeOwner({ url, functionName }) {
  if (functionName === '(root)') return 'node internals, from the event loop';
  if (url === '' && functionName.startsWith('(')) return functionName;
  if (url === 'node:inspector') return 'profiler';
  if (url === '' || url.startsWith('node:')) return undefined;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(DIST)) return 'ratewise';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return module ? module[1] : path.includes('/bench/') ? 'this script' : 'other';
}

function report() {
  console.log(
    `node ${process.version}; HttpCrawler, ${TASKS} tasks, ${PAGES} pages of a server that never refuses (350 ms), ${ROUNDS} rounds; medians\n`,
  );
  console.log(
    '| control | pages/s | CPU ms per page (process) | CPU ms per page (profile, not idle) |',
  );
  console.log('| --- | ---: | ---: | ---: |');
  for (const [control, runs] of Object.entries(results)) {
    const busy = runs.map((r) => sumBusy(r.byPackage));
    console.log(
      `| ${control} | ${median(runs.map((r) => r.pagesPerSecond)).toFixed(1)} | ${median(runs.map((r) => r.cpuMs)).toFixed(3)} | ${median(busy).toFixed(3)} |`,
    );
  }
  const owners = new Set(
    Object.values(results).flatMap((runs) => runs.flatMap((r) => Object.keys(r.byPackage))),
  );
  const rows = [...owners]
    .filter((who) => who !== '(idle)')
    .map((who) => [
      who,
      ...['without', 'ratewise'].map((c) => median(results[c].map((r) => r.byPackage[who] ?? 0))),
    ])
    .sort((a, b) => b[2] - a[2]);
  console.log('\nSelf time by owner, ms per page (profile)\n');
  console.log('| owner | without | ratewise | difference |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [who, without, withRatewise] of rows) {
    if (Math.max(without, withRatewise) < 0.005) continue;
    console.log(
      `| ${who} | ${without.toFixed(3)} | ${withRatewise.toFixed(3)} | ${(withRatewise - without).toFixed(3)} |`,
    );
  }
}

function sumBusy(byPackage) {
  return Object.entries(byPackage)
    .filter(([who]) => who !== '(idle)')
    .reduce((sum, [, ms]) => sum + ms, 0);
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function firstLine(stream) {
  for await (const line of createInterface({ input: stream })) return line;
  throw new Error('serve-mock printed nothing');
}
