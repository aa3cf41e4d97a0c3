// ratewise in every scenario of `ratewise bench`, seeds 1–5, in simulation; plus the 25 s cold
// start of the crawl criterion (the reference-000 scenario, ok out of a capacity of 750). Prints a Markdown
// table for BENCHMARKS.md.
//
//   npm run build && node bench/seeds.mjs
import { SCENARIOS } from '../dist/sim/scenarios.js';
import { simulate } from '../dist/sim/simulate.js';
import { ratewise } from '../dist/sim/strategies/index.js';

const SEEDS = [1, 2, 3, 4, 5];
const percent = (share, digits = 1) =>
  share === null ? '—' : `${(100 * share).toFixed(digits)} %`;

/** The two rows a scenario gets: its main measure and its rejections. */
function rows(scenario, summaries) {
  const rejected = summaries.map((s) => percent(s.rejectedShare, 2));
  if (scenario.workload.urls !== undefined) {
    const batch = (s) =>
      s.batchS === null ? `unfinished, ${s.okPerS.toFixed(1)} ok/s` : `${s.batchS.toFixed(1)} s`;
    return [
      ['batch time', summaries.map(batch)],
      ['rejected or timed out', rejected],
    ];
  }
  const goodput = summaries.map((s) =>
    s.capacityShare === null ? `${s.okPerS.toFixed(1)} ok/s` : percent(s.capacityShare),
  );
  return [
    ['goodput', goodput],
    ['rejected', rejected],
  ];
}

const table = [];
for (const scenario of SCENARIOS) {
  const summaries = [];
  for (const seed of SEEDS) summaries.push((await simulate(scenario, ratewise, { seed })).summary);
  for (const [measure, values] of rows(scenario, summaries))
    table.push([scenario.name, measure, ...values]);
}
const coldStart = [];
for (const seed of SEEDS) {
  const reference = SCENARIOS.find((s) => s.name === 'reference-000');
  const { log } = await simulate(reference, ratewise, { seed, durationMs: 25_000 });
  coldStart.push(String(log.status.filter((status) => status >= 200 && status < 300).length));
}
table.push(['reference-000, first 25 s', 'ok (of ~750)', ...coldStart]);

console.log(`| scenario | measure | ${SEEDS.map((s) => `seed ${s}`).join(' | ')} |`);
console.log(`| --- | --- | ${SEEDS.map(() => '---:').join(' | ')} |`);
for (const row of table) console.log(`| ${row.join(' | ')} |`);
