#!/usr/bin/env node
// Per-server figures of ratewise on the randomized family (the runs `ratewise bench --family`
// makes), to find where a controller change gains or loses: one JSON row per server (its drawn
// parameters and its measures) and a one-line summary. `--dist` runs another build of the
// package (e.g. one built from main with `npx tsc -p tsconfig.build.json --outDir
// node_modules/.dists/main`: inside node_modules so its packages resolve) for a side-by-side
// comparison with bench/family-compare.mjs.
//
// `--timing-noise MS` puts 0..MS ms of seeded noise between admission and arrival and between
// the answer and its report (see `SimulateOptions.timingNoiseMs`).
//
// `--run-seed K` (K > 0) runs the same servers with other run draws (their latencies, noise and
// the client's randomness; each server as if its index were `index + K × 1,000,000`, as
// bench/family-resample.mjs does), one server at a time in this thread. A family's p10 band moves
// by half a point between run seeds on one build: judge a change on several run seeds pooled
// with bench/family-pool.mjs.
//
// `--set field` runs the field set (`ratewise bench --field`) instead of the family.
//
// `--slots-at-cap` gives each concurrency cap's client as many slots as the cap (what the controller
// would attain if it knew the cap: the server is never over it, timing noise or not).
// `--kind K` runs only the servers of limit kind K (e.g. `penalty-box`); `--duration S` runs each
// server S seconds instead of its drawn length (its capacity steps and unseen consumer's spans as
// drawn, all within the first 240 s), steady goodput counted over the second half as always — a
// penalty box's second block often falls in a 240 s run's second half, and what a controller does
// after it shows only in a longer one. Both run one server at a time in this thread.
//
//   npm run build && node bench/family-servers.mjs [--seed 1] [--set family|field] [--count 200] [--kind K] [--slots-at-cap] [--duration S] [--timing-noise 0] [--run-seed 0] [--dist DIR] [--out FILE.json]
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    set: { type: 'string', default: 'family' },
    count: { type: 'string', default: '200' },
    'timing-noise': { type: 'string', default: '0' },
    'run-seed': { type: 'string', default: '0' },
    kind: { type: 'string' },
    'slots-at-cap': { type: 'boolean', default: false },
    duration: { type: 'string' },
    dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
    out: { type: 'string' },
  },
});
const dist = resolve(values.dist);
const { runFamilyBench } = await import(`${dist}/sim/family/bench.js`);
const { runFamilyServer } = await import(`${dist}/sim/family/run.js`);
const set = values.set;
// The field set needs a build that has it; the family is every build's.
const sets = set === 'family' ? undefined : await import(`${dist}/sim/family/sets.js`);
const draw =
  sets === undefined
    ? (await import(`${dist}/sim/family/draw.js`)).drawServer
    : (s, i) => sets.drawFrom(set, s, i);
const { ratewise } = await import(`${dist}/sim/strategies/index.js`);
const { refusalPauses } = await import(`${dist}/sim/family/server.js`);
const seed = Number(values.seed);
const count = Number(values.count);
const runSeed = Number(values['run-seed']);
if (!Number.isInteger(runSeed) || runSeed < 0) {
  console.error(`family-servers: --run-seed ${values['run-seed']}: want an integer ≥ 0`);
  process.exit(2);
}
const RESAMPLE_STRIDE = 1_000_000;
const durationS = values.duration === undefined ? undefined : Number(values.duration);
if (durationS !== undefined && !(durationS > 0)) {
  console.error(`family-servers: --duration ${values.duration}: want a number of seconds > 0`);
  process.exit(2);
}

const timingNoiseMs = Number(values['timing-noise']);
const noise = timingNoiseMs > 0 ? { timingNoiseMs } : {};

/** The family's own runs (run seed 0), spread over worker threads: server → its run. */
async function familyRuns() {
  const of = set === 'family' ? {} : { set };
  const result = await runFamilyBench({ count, seed, strategies: [ratewise], ...of, ...noise });
  const runs = result.runs.get(ratewise.name);
  return result.servers.map((server) => [server, runs.get(server.index)]);
}

/**
 * The same servers one at a time: with run seed `runSeed` (each drawn as if its index were
 * shifted), of `--kind` only, run `--duration` seconds.
 */
async function separateRuns() {
  const pairs = [];
  for (let i = 0; i < count; i++) {
    const server = draw(seed, i);
    if (values.kind !== undefined && server.kind !== values.kind) continue;
    const shifted = { ...server, index: i + runSeed * RESAMPLE_STRIDE };
    if (durationS !== undefined) shifted.durationMs = durationS * 1000;
    if (slotsAtCap && server.kind === 'concurrency-cap')
      shifted.client = { ...server.client, maxConcurrency: server.slots };
    pairs.push([server, await runFamilyServer(shifted, ratewise, noise)]);
  }
  return pairs;
}

const slotsAtCap = values['slots-at-cap'];
const together =
  runSeed === 0 && values.kind === undefined && durationS === undefined && !slotsAtCap;
const pairs = together ? await familyRuns() : await separateRuns();
const rows = pairs.map(([server, run]) => {
  const { measures, batchS } = run;
  return {
    index: server.index,
    kind: server.kind,
    retryAfter: server.retryAfter === 'fixed' ? `fixed ${server.retryAfterS} s` : server.retryAfter,
    rates: server.rate.map((step) => Math.round(step.rate * 10) / 10),
    windowMs: server.windowMs,
    burst: server.burst,
    ...(server.field ? { field: server.field } : {}),
    latencyMs: server.latencyMs,
    slots: server.client.maxConcurrency,
    background: server.background?.share ?? 0,
    goodput: measures.goodput,
    refused: measures.refused,
    coldStart: measures.coldStart,
    stepUps: measures.stepUps.map((step) => (step.seconds === Infinity ? null : step.seconds)),
    // which step-up row of `bench --family` these count in: paused refusals (a Retry-After of 1 s or more) or cheap
    stepsPaused: refusalPauses(server),
    batchS,
  };
});
if (values.out) await writeFile(values.out, JSON.stringify(rows));

const known = (values) => values.filter((v) => v !== null).sort((a, b) => a - b);
const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const mean = (sorted) => sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
const pct = (v) => `${(100 * v).toFixed(1)} %`;
const goodput = known(rows.map((row) => row.goodput));
const refused = known(rows.map((row) => row.refused));
const cold = known(rows.map((row) => row.coldStart));
// Step-up times as `bench --family` reports them: nearest rank over step events, null (never) last.
const rank = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const stepSpread = (paused) => {
  const steps = rows
    .filter((row) => row.stepsPaused === paused)
    .flatMap((row) => row.stepUps.map((s) => s ?? Infinity))
    .sort((a, b) => a - b);
  const s = (v) => (v === undefined ? '—' : v === Infinity ? 'never' : `${v.toFixed(1)} s`);
  return `${s(rank(steps, 0.1))} / ${s(rank(steps, 0.5))} / ${s(rank(steps, 0.9))} (${steps.length})`;
};
console.log(
  `seed ${seed}${runSeed > 0 ? `, run seed ${runSeed}` : ''}${timingNoiseMs > 0 ? `, timing noise 0–${timingNoiseMs} ms` : ''}: steady goodput p10 ${pct(at(goodput, 0.1))}, p50 ${pct(at(goodput, 0.5))}, mean ${pct(mean(goodput))}; ` +
    `refused p90 ${pct(at(refused, 0.9))}, mean ${pct(mean(refused))}; ` +
    `cold start p10 ${pct(at(cold, 0.1))}, p50 ${pct(at(cold, 0.5))}; ` +
    `to 90 % of a raised capacity p10 / p50 / p90, cheap ${stepSpread(false)}, paused ${stepSpread(true)}`,
);
