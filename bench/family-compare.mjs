#!/usr/bin/env node
// Compares two outputs of bench/family-servers.mjs server by server: each server whose figure
// moved by at least the threshold, the mean before and after, and the tail the issue judges (p10
// of goodput and cold start, p90 of refusals) read both at its single rank and as the mean of the
// band of ranks around it (p5–p15, p85–p95), which one server crossing a rank does not move.
//
//   node bench/family-compare.mjs BEFORE.json AFTER.json [--field goodput|refused|coldStart] [--points 1]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    field: { type: 'string', default: 'goodput' },
    points: { type: 'string', default: '1' },
  },
});
if (positionals.length !== 2) {
  console.error(
    'usage: node bench/family-compare.mjs BEFORE.json AFTER.json [--field F] [--points N]',
  );
  process.exit(2);
}
const [before, after] = await Promise.all(
  positionals.map(async (file) => JSON.parse(await readFile(file, 'utf8'))),
);
const field = values.field;
const threshold = Number(values.points) / 100;
const pct = (v) => (100 * v).toFixed(1);
let up = 0;
let down = 0;
for (const [i, old] of before.entries()) {
  const from = old[field];
  const to = after[i]?.[field];
  if (from === null || to === null || to === undefined || Math.abs(to - from) < threshold) continue;
  if (to > from) up++;
  else down++;
  const { index, kind, retryAfter, rates, latencyMs, windowMs, burst } = old;
  const shape = `${kind}, Retry-After ${retryAfter}, ${rates.join('→')} req/s, ${latencyMs} ms, window ${windowMs} ms, burst ${burst}`;
  console.log(`#${index} (${shape}): ${field} ${pct(from)} → ${pct(to)}`);
}
const mean = (rows) => {
  const known = rows.map((row) => row[field]).filter((v) => v !== null && v !== undefined);
  return known.reduce((sum, v) => sum + v, 0) / known.length;
};
console.log(`${field}: mean ${pct(mean(before))} → ${pct(mean(after))}; ${up} up, ${down} down`);
const tail = field === 'refused' ? 0.9 : 0.1;
const sorted = (rows) =>
  rows
    .map((row) => row[field])
    .filter((v) => v !== null && v !== undefined)
    .sort((a, b) => a - b);
const at = (values, p) => values[Math.min(values.length - 1, Math.floor(p * values.length))];
const band = (values) => {
  const band = values.slice(
    Math.floor((tail - 0.05) * values.length),
    Math.floor((tail + 0.05) * values.length) + 1,
  );
  return band.reduce((sum, v) => sum + v, 0) / band.length;
};
const [from, to] = [sorted(before), sorted(after)];
const name = `p${Math.round(tail * 100)}`;
console.log(
  `${field}: ${name} ${pct(at(from, tail))} → ${pct(at(to, tail))}; ${name} band (p${Math.round(tail * 100) - 5}–p${Math.round(tail * 100) + 5} mean) ${pct(band(from))} → ${pct(band(to))}`,
);
