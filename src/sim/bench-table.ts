import type { BenchRow } from './bench.js';
import type { Scenario } from './scenarios.js';
import type { RunSummary } from './summary.js';

type Column = readonly [heading: string, cell: (s: RunSummary) => string];

/** A cell with no figure: not measured, never reached, or no capacity to compare with. */
const NONE = '—';
const num = (value: number | null, digits = 1): string =>
  value === null ? NONE : value.toFixed(digits);
const pct = (value: number | null): string =>
  value === null ? NONE : `${(value * 100).toFixed(1)} %`;

const TIMED: readonly Column[] = [
  ['ok/s', (s) => num(s.okPerS)],
  ['of capacity', (s) => pct(s.capacityShare)],
  ['rejected', (s) => pct(s.rejectedShare)],
  ['p50 ms', (s) => num(s.p50Ms, 0)],
  ['p95 ms', (s) => num(s.p95Ms, 0)],
  ['converged at s', (s) => num(s.convergeS, 0)],
  ['oscillation', (s) => num(s.oscillation, 2)],
  ['ceiling in flight at s', (s) => num(s.timeToMaxS)],
];

const BATCH: readonly Column[] = [
  ['batch s', (s) => num(s.batchS)],
  ['ok/s', (s) => num(s.okPerS)],
  ['final-quarter ok/s', (s) => num(s.finalQuarterRate, 2)],
  ['rejected or timed out', (s) => pct(s.rejectedShare)],
  ['p95 ms', (s) => num(s.p95Ms, 0)],
  ['slowest ms', (s) => num(s.maxMs, 0)],
];

/**
 * The bench results as Markdown: one table per scenario, in the order run,
 * each headed by the scenario's description. Steady-state figures are
 * measured after the scenario's warm-up; a strategy that sent nothing then
 * gets `—` for the figures its requests would give, and a note saying why.
 */
export function benchMarkdown(rows: readonly BenchRow[], scenarios: readonly Scenario[]): string {
  const parts: string[] = [];
  for (const scenario of scenarios) {
    const mine = rows.filter((row) => row.scenario === scenario.name);
    if (mine.length === 0) continue;
    const columns = scenario.workload.urls === undefined ? TIMED : BATCH;
    const first = mine[0] as BenchRow;
    parts.push(
      `### ${scenario.name} (${first.mode}, ${first.durationS} s, seed ${first.seed})\n\n${scenario.description}.\n`,
      `| strategy | ${columns.map(([heading]) => heading).join(' | ')} |`,
      `| --- | ${columns.map(() => '---:').join(' | ')} |`,
      ...mine.map(
        (row) =>
          `| ${row.strategy} | ${columns.map(([, cell]) => cell(row.summary)).join(' | ')} |`,
      ),
      '',
      ...idleNote(mine),
    );
  }
  return parts.join('\n');
}

/** The note under a table naming the strategies that sent no request in the steady state, if any. */
function idleNote(rows: readonly BenchRow[]): string[] {
  const idle = rows.filter((row) => row.summary.steadyRequests === 0).map((row) => row.strategy);
  if (idle.length === 0) return [];
  const who = idle.length === 1 ? `${idle[0]} sent` : `${idle.join(', ')} each sent`;
  return [`${NONE} not measured: ${who} no request in the steady state.`, ''];
}
