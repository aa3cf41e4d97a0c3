#!/usr/bin/env node
// Pools several runs of one family (bench/family-servers.mjs with different `--run-seed`s, one
// build) into one file of the same shape, each server's goodput, refused share and cold start
// the mean of its runs. One run's p10 band moves by about half a point between run seeds on the
// same build (seed 1 on 61cf032: 88.89, 88.77, 88.26 %), more than the gains a controller change
// is judged on; pooled runs cut that spread, and bench/family-compare.mjs reads pooled files as
// it reads single runs. Each pooled row keeps the first run's other columns, holds in `stepUps`
// the step-up events of every run (run after run), and adds `runs` (how many pooled it) and
// `spread` (each field's min and max over the runs). It prints the step-up times over all the
// runs' events, as bench/family-servers.mjs prints one run's.
//
//   node bench/family-pool.mjs RUN0.json RUN1.json [RUN2.json …] --out POOLED.json
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { out: { type: 'string' } },
  allowPositionals: true,
});
const usage = (message) => {
  console.error(`family-pool: ${message}`);
  process.exit(2);
};
if (positionals.length < 2) usage('give two or more family-servers JSON files to pool');
if (!values.out) usage('--out is required (the pooled JSON file to write)');

const FIELDS = ['goodput', 'refused', 'coldStart'];
const files = await Promise.all(
  positionals.map(async (f) => JSON.parse(await readFile(f, 'utf8'))),
);
const [first] = files;
if (files.some((rows) => rows.length !== first.length))
  usage(`the files hold different numbers of servers (${files.map((r) => r.length).join(', ')})`);

/** Mean, min and max of the known values, or null when no run measured the field. */
function pool(values) {
  const known = values.filter((v) => v !== null && v !== undefined);
  if (known.length === 0) return null;
  const mean = known.reduce((sum, v) => sum + v, 0) / known.length;
  return { mean, min: Math.min(...known), max: Math.max(...known) };
}

const pooled = first.map((row, i) => {
  const same = files.map((rows) => rows[i]);
  if (same.some((r) => r.index !== row.index)) usage(`server ${i}: the files list other servers`);
  const byField = Object.fromEntries(FIELDS.map((f) => [f, pool(same.map((r) => r[f]))]));
  return {
    ...row,
    ...Object.fromEntries(FIELDS.map((f) => [f, byField[f]?.mean ?? null])),
    stepUps: same.flatMap((r) => r.stepUps),
    runs: files.length,
    spread: Object.fromEntries(
      FIELDS.map((f) => [f, byField[f] && { min: byField[f].min, max: byField[f].max }]),
    ),
  };
});
await writeFile(values.out, JSON.stringify(pooled));

/** Step-up times over every run's events, nearest rank as `bench --family` reports them. */
function stepSpread(paused) {
  const steps = pooled
    .filter((row) => row.stepsPaused === paused)
    .flatMap((row) => row.stepUps.map((s) => s ?? Infinity))
    .sort((a, b) => a - b);
  const rank = (p) => steps[Math.max(0, Math.ceil(p * steps.length) - 1)];
  const s = (v) => (v === undefined ? '—' : v === Infinity ? 'never' : `${v.toFixed(1)} s`);
  return `${s(rank(0.1))} / ${s(rank(0.5))} / ${s(rank(0.9))} (${steps.length} events)`;
}
console.log(
  `pooled ${files.length} runs of ${pooled.length} servers into ${values.out}; ` +
    `to 90 % of a raised capacity p10 / p50 / p90, cheap ${stepSpread(false)}, paused ${stepSpread(true)}`,
);
