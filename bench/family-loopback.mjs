#!/usr/bin/env node
// Simulation against real HTTP on the randomized server family (issue: control that holds on
// servers it was never tuned for). For each sampled server: `ratewise serve-mock --family-index I`
// on loopback, crawled for real by `ratewise crawl --duration D`, and the same server run in
// virtual time; both counted on the server's side by the same code (measureRun). Ramp servers
// (batches of URLs, not timed runs) are skipped.
//
// `--set field` takes the servers from the field set (`ratewise bench --field`).
//
//   npm run build && node bench/family-loopback.mjs [--seed 1] [--set family|field] [--count 20 | --indexes 183,27] [--duration 60] [--parallel 2] [--json]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeServer } from '../dist/sim/family/describe.js';
import { measureRun } from '../dist/sim/family/measures.js';
import { runFamilyServer } from '../dist/sim/family/run.js';
import { drawFrom } from '../dist/sim/family/sets.js';
import { ratewise } from '../dist/sim/strategies/index.js';

const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;
/** Points of goodput (share of capacity) within which loopback must agree with simulation. */
const TOLERANCE = 5;

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    set: { type: 'string', default: 'family' },
    count: { type: 'string', default: '20' },
    indexes: { type: 'string' },
    duration: { type: 'string', default: '60' },
    parallel: { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
  },
});
const seed = Number(values.seed);
const set = values.set;
const durationMs = Number(values.duration) * 1000;

/** The servers of the seed's family at `indexes` (comma-separated), ramps left out. */
function chosen(indexes) {
  return indexes
    .split(',')
    .map((index) => drawFrom(set, seed, Number(index)))
    .filter((server) => !server.ramp);
}

/** The first `count` timed (non-ramp) servers of the seed's family. */
function sample(count) {
  const servers = [];
  for (let index = 0; servers.length < count; index++) {
    const server = drawFrom(set, seed, index);
    if (!server.ramp) servers.push(server);
  }
  return servers;
}

/** Resolves with the first line a child prints on stdout. */
function firstLine(child) {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing`)));
  });
}

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`)),
    );
  });
}

/** Serves `server` on loopback, crawls it for `durationMs`, and counts what the server saw. */
async function loopback(server) {
  const dir = await mkdtemp(join(tmpdir(), 'rw-family-'));
  try {
    const recordFile = join(dir, 'record.json');
    const mock = spawn(
      process.execPath,
      [
        CLI,
        'serve-mock',
        '--family-index',
        String(server.index),
        '--family-set',
        set,
        '--family-seed',
        String(seed),
        '--port',
        '0',
        '--json',
        '--record',
        recordFile,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const { url } = JSON.parse(await firstLine(mock));
    const peak = Math.max(...server.rate.map((step) => step.rate));
    const urls = Math.ceil((peak * durationMs) / 1000) * 2 + 1000;
    const lines = Array.from({ length: urls }, (_, i) => `${url}/item/${i}`).join('\n');
    await writeFile(join(dir, 'urls.txt'), `${lines}\n`);
    const args = ['crawl', join(dir, 'urls.txt'), '--out', join(dir, 'results.jsonl')];
    args.push('--max-concurrency', String(server.client.maxConcurrency));
    args.push('--duration', String(durationMs / 1000), '--json');
    await run(args);
    const exited = new Promise((resolve) => mock.once('exit', resolve));
    mock.kill('SIGTERM');
    await exited;
    const { record } = JSON.parse(await readFile(recordFile, 'utf8'));
    return measureRun(server, record, durationMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `task` over `items`, `parallel` at a time, keeping the order. */
async function pool(items, parallel, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return results;
}

const pct = (x) => (x === null || x === undefined ? null : Math.round(x * 1000) / 10);
const servers =
  values.indexes === undefined ? sample(Number(values.count)) : chosen(values.indexes);
const rows = await pool(servers, Number(values.parallel), async (server, i) => {
  const simulated = (await runFamilyServer(server, ratewise, { durationMs })).measures;
  const real = await loopback(server);
  const row = {
    index: server.index,
    server: describeServer(server),
    simulated: {
      goodput: pct(simulated.goodputAll),
      refused: pct(simulated.refusedAll),
      coldStart: pct(simulated.coldStart),
    },
    loopback: {
      goodput: pct(real.goodputAll),
      refused: pct(real.refusedAll),
      coldStart: pct(real.coldStart),
    },
  };
  row.points =
    row.simulated.goodput === null || row.loopback.goodput === null
      ? null
      : Math.round(Math.abs(row.simulated.goodput - row.loopback.goodput) * 10) / 10;
  if (!values.json)
    process.stderr.write(
      `${i + 1}/${servers.length} #${server.index}: sim ${row.simulated.goodput} % vs loopback ${row.loopback.goodput} %\n`,
    );
  return row;
});
const judged = rows.filter((row) => row.points !== null);
const within = judged.filter((row) => row.points <= TOLERANCE).length;
const summary = {
  seed,
  durationS: durationMs / 1000,
  servers: rows.length,
  judged: judged.length,
  withinPoints: TOLERANCE,
  within,
};
if (values.json) {
  process.stdout.write(`${JSON.stringify({ ...summary, rows })}\n`);
} else {
  const cell = (m) => `${m.goodput ?? '–'} % / ${m.refused ?? '–'} % / ${m.coldStart ?? '–'} %`;
  console.log(
    '| server | simulated: goodput / refused / cold start | loopback | goodput gap, points |',
  );
  console.log('|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.server} | ${cell(row.simulated)} | ${cell(row.loopback)} | ${row.points ?? '–'} |`,
    );
  console.log(
    `\n${within} of ${judged.length} judged servers within ${TOLERANCE} points (seed ${seed}, ${durationMs / 1000} s runs; goodput counted from 30 s, capacity steps included).`,
  );
}
