import type { FamilyBenchResult } from './bench.js';
import { describeServer } from './describe.js';
import type { FamilyFigures, Spread } from './figures.js';
import type { FamilyServer } from './server.js';

/** One target of the family bench, judged on one strategy's figures. */
export interface FamilyTarget {
  /** What is measured, e.g. `steady goodput p10`. */
  readonly name: string;
  /** The target in words, e.g. `≥ 95 %`. */
  readonly goal: string;
  /** The measured value in words; `—` when nothing was measured. */
  readonly value: string;
  readonly met: boolean;
}

type Row = readonly [
  name: string,
  goal: string,
  pick: (f: FamilyFigures) => Spread | null,
  unit: 'share' | 's' | 'x',
];

const ROWS: readonly Row[] = [
  ['steady goodput, share of capacity', 'p10 ≥ 95 %', (f) => f.goodput, 'share'],
  ['steady refused share', 'p90 ≤ 1 %', (f) => f.refused, 'share'],
  ['goodput from 30 s, steps included', '', (f) => f.goodputAll, 'share'],
  ['refused share, whole run', '', (f) => f.refusedAll, 'share'],
  ['cold start (first 20 s)', 'p10 ≥ 85 %', (f) => f.coldStart, 'share'],
  ['to 90 % of a raised capacity, cheap refusals', 'p90 ≤ 5 s', (f) => f.stepUpCheap, 's'],
  ['to 90 % of a raised capacity, paused refusals', 'p90 ≤ 30 s', (f) => f.stepUpPaused, 's'],
  ['refusals under 1 % after a step down', '', (f) => f.stepDown, 's'],
  ['quota used (quota servers)', 'p10 ≥ 98 %', (f) => f.quotaUse, 'share'],
  ['count-keyed ramp: batch time vs fixed', 'p90 ≤ 1.05×', (f) => f.countRampBatch, 'x'],
  ['count-keyed ramp: last quarter vs fixed', 'p10 ≥ 0.95×', (f) => f.countRampFinal, 'x'],
  ['rate-keyed ramp: batch time vs fixed', 'p90 < 1×', (f) => f.rateRampBatch, 'x'],
];

/** Judges one strategy's figures against the targets. */
export function familyTargets(figures: FamilyFigures): FamilyTarget[] {
  const check = (
    name: string,
    goal: string,
    value: number | null | undefined,
    unit: Row[3],
    met: (v: number) => boolean,
  ): FamilyTarget => ({
    name,
    goal,
    value: value === null || value === undefined ? '—' : format(value, unit),
    met: value !== null && value !== undefined && met(value),
  });
  return [
    check('steady goodput p10', '≥ 95 %', figures.goodput?.p10, 'share', (v) => v >= 0.95),
    check('steady refused p90', '≤ 1 %', figures.refused?.p90, 'share', (v) => v <= 0.01),
    check('step up, cheap, p90', '≤ 5 s', figures.stepUpCheap?.p90, 's', (v) => v <= 5),
    check('step up, paused, p90', '≤ 30 s', figures.stepUpPaused?.p90, 's', (v) => v <= 30),
    check('quota used p10', '≥ 98 %', figures.quotaUse?.p10, 'share', (v) => v >= 0.98),
    check('quota servers refusing', '0', figures.quotaRefusing, 'x', (v) => v === 0),
    check('cold start p10', '≥ 85 %', figures.coldStart?.p10, 'share', (v) => v >= 0.85),
    check('count ramp batch p90', '≤ 1.05×', figures.countRampBatch?.p90, 'x', (v) => v <= 1.05),
    check(
      'count ramp last quarter p10',
      '≥ 0.95×',
      figures.countRampFinal?.p10,
      'x',
      (v) => v >= 0.95,
    ),
    check('rate ramp batch p90', '< 1×', figures.rateRampBatch?.p90, 'x', (v) => v < 1),
    check('hot loops', '0', figures.hotLoops, 'x', (v) => v === 0),
  ];
}

/**
 * The family bench as Markdown: every figure (p10 / p50 / p90) for every
 * strategy side by side, then the worst servers of `focus` by goodput and by
 * refusals, each described so a regression names its case.
 */
export function familyMarkdown(result: FamilyBenchResult, focus = 'ratewise', worst = 5): string {
  const { figures } = result;
  const head = `| figure (p10 / p50 / p90) | target | ${figures.map((f) => f.strategy).join(' | ')} |`;
  const rule = `| --- | --- | ${figures.map(() => '---').join(' | ')} |`;
  const rows = ROWS.map(
    ([name, goal, pick, unit]) =>
      `| ${name} | ${goal} | ${figures.map((f) => spreadText(pick(f), unit)).join(' | ')} |`,
  );
  const loops = `| runs ended in a hot loop | 0 | ${figures.map((f) => f.hotLoops).join(' | ')} |`;
  const refusing = `| quota servers refusing | 0 | ${figures.map((f) => f.quotaRefusing).join(' | ')} |`;
  const lines = [head, rule, ...rows, refusing, loops, '', ...worstCases(result, focus, worst)];
  return lines.join('\n');
}

function worstCases(result: FamilyBenchResult, focus: string, count: number): string[] {
  const runs = result.runs.get(focus);
  if (runs === undefined) return [];
  const byIndex = (index: number) => result.servers[index] as FamilyServer;
  const scored = [...runs.values()].filter((run) => run.measures.goodput !== null);
  const line = (index: number, figure: string) => `- ${figure}: ${describeServer(byIndex(index))}`;
  const goodput = [...scored]
    .sort((a, b) => (a.measures.goodput ?? 0) - (b.measures.goodput ?? 0))
    .slice(0, count)
    .map((run) => line(run.index, `goodput ${format(run.measures.goodput ?? 0, 'share')}`));
  const refused = [...scored]
    .sort((a, b) => (b.measures.refused ?? 0) - (a.measures.refused ?? 0))
    .slice(0, count)
    .map((run) => line(run.index, `refused ${format(run.measures.refused ?? 0, 'share')}`));
  return [
    `Worst ${count} servers for ${focus} by steady goodput (seed ${result.seed}):`,
    ...goodput,
    '',
    `Worst ${count} by steady refused share:`,
    ...refused,
  ];
}

function spreadText(spread: Spread | null, unit: Row[3]): string {
  if (spread === null) return '—';
  return `${format(spread.p10, unit)} / ${format(spread.p50, unit)} / ${format(spread.p90, unit)}`;
}

function format(value: number, unit: Row[3]): string {
  if (value === Infinity) return 'never';
  if (unit === 'share') return `${(value * 100).toFixed(1)} %`;
  if (unit === 's') return `${value.toFixed(1)} s`;
  return Number.isInteger(value) ? String(value) : `${value.toFixed(2)}×`;
}
