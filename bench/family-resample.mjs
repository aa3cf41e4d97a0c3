#!/usr/bin/env node
// Is a family server's move real, or the server's own chaos? Runs chosen servers of a seed again
// with other run seeds — the same drawn server (limit, steps, consumer, refusal form), other draws
// of its latencies, its noise and the client's randomness — for one or more builds, and prints each
// server's figures per build as mean ± standard deviation [min – max] over the runs. Run 0 is the
// family's own run (the figure `bench/family-servers.mjs` reports); run k > 0 draws as if the
// server had index `index + k × 1,000,000`. A change whose loss on a server is within that
// server's spread across runs, and whose resampled mean does not fall, moved a chaotic figure; one
// whose resampled mean falls too lost on that server.
//
//   npm run build && node bench/family-resample.mjs --seed 2 --indexes 159,47 [--runs 8] [--dist DIR]... [--json]
//
// Each `--dist` is a build (default: this checkout's dist); with two or more, the last column
// block is each build's mean less the first's, with the standard error of that difference.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    indexes: { type: 'string' },
    runs: { type: 'string', default: '8' },
    dist: { type: 'string', multiple: true },
    json: { type: 'boolean', default: false },
  },
});
const usage = (message) => {
  console.error(`family-resample: ${message}`);
  process.exit(2);
};
if (!values.indexes) usage('--indexes is required (e.g. --indexes 159,47)');
const indexes = values.indexes.split(',').map(Number);
if (indexes.some((i) => !Number.isInteger(i) || i < 0))
  usage(`--indexes ${values.indexes}: want indexes ≥ 0`);
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 2) usage(`--runs ${values.runs}: want an integer ≥ 2`);
const dists = (values.dist ?? [new URL('../dist', import.meta.url).pathname]).map((d) =>
  resolve(d),
);
const RESAMPLE_STRIDE = 1_000_000;
const FIELDS = ['goodput', 'refused', 'coldStart'];

/** A build's runner: its family runner, drawer and ratewise strategy. */
async function loadBuild(dist) {
  const { runFamilyServer } = await import(`${dist}/sim/family/run.js`);
  const { drawServer } = await import(`${dist}/sim/family/draw.js`);
  const { describeServer } = await import(`${dist}/sim/family/describe.js`);
  const { ratewise } = await import(`${dist}/sim/strategies/index.js`);
  return { dist, runFamilyServer, drawServer, describeServer, ratewise };
}

/** Mean, standard deviation and range of the known values. */
function spread(values) {
  const known = values.filter((v) => v !== null && v !== undefined);
  if (known.length === 0) return null;
  const mean = known.reduce((sum, v) => sum + v, 0) / known.length;
  const variance =
    known.reduce((sum, v) => sum + (v - mean) ** 2, 0) / Math.max(1, known.length - 1);
  return {
    mean,
    sd: Math.sqrt(variance),
    min: Math.min(...known),
    max: Math.max(...known),
    n: known.length,
  };
}

/** One build's figures on one server over `runs` run seeds. */
async function resample(build, seed, index) {
  const server = build.drawServer(seed, index);
  const samples = [];
  for (let k = 0; k < runs; k++) {
    const drawn = k === 0 ? server : { ...server, index: index + k * RESAMPLE_STRIDE };
    const { measures } = await build.runFamilyServer(drawn, build.ratewise);
    samples.push(measures);
  }
  const figures = Object.fromEntries(FIELDS.map((f) => [f, spread(samples.map((m) => m[f]))]));
  return { server: build.describeServer(server), samples, figures };
}

const pct = (v, digits = 1) => (100 * v).toFixed(digits);
const show = (s) =>
  s === null ? '—' : `${pct(s.mean)} ± ${pct(s.sd)} [${pct(s.min)} – ${pct(s.max)}]`;
const diff = (a, b) => {
  if (a === null || b === null) return '—';
  const se = Math.sqrt(a.sd ** 2 / a.n + b.sd ** 2 / b.n);
  return `${b.mean >= a.mean ? '+' : ''}${pct(b.mean - a.mean)} (se ${pct(se)})`;
};

const builds = await Promise.all(dists.map(loadBuild));
const seed = Number(values.seed);
const report = [];
for (const index of indexes) {
  const byBuild = [];
  for (const build of builds) byBuild.push(await resample(build, seed, index));
  report.push({ seed, index, builds: byBuild.map((r, i) => ({ dist: dists[i], ...r })) });
  if (values.json) continue;
  console.log(`seed ${seed} #${index}: ${byBuild[0].server}`);
  for (const [i, r] of byBuild.entries()) {
    const first = r.samples[0];
    console.log(`  ${dists[i]}`);
    for (const f of FIELDS) {
      const delta = i === 0 ? '' : `   vs first build ${diff(byBuild[0].figures[f], r.figures[f])}`;
      const own = first[f] === null ? '—' : pct(first[f]);
      console.log(
        `    ${f.padEnd(9)} run 0 ${own.padStart(5)} %; ${runs} runs ${show(r.figures[f])} %${delta}`,
      );
    }
  }
}
if (values.json)
  console.log(
    JSON.stringify(
      report.map(({ builds: b, ...rest }) => ({
        ...rest,
        builds: b.map(({ samples, ...r }) => r),
      })),
    ),
  );
