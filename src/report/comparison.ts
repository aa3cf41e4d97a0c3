import type { LogAnalysis } from '../analyze/log-analysis.js';
import { formatNumber } from '../analyze/text-table.js';
import type { WindowRow } from '../analyze/window-row.js';
import { escapeHtml as h } from './escape.js';

/** Another run to show beside the report's own, such as the demo's naive run. */
export interface CompareRun {
  /** Its log (any format `analyze` reads: events, crawl results, plain request lines). */
  log: string;
  /** How the report names it, e.g. `naive`. */
  label: string;
}

/**
 * Both runs per bucket, on seconds from each run's own start (so runs made
 * one after the other lie over each other): ok responses per second and
 * refusals (429 + 503) per bucket. `null` where a run has no bucket.
 */
export interface ComparisonSeries {
  /** The two runs' names: the report's own first. */
  labels: [string, string];
  /** Bucket starts, seconds from each run's start. */
  t: number[];
  ok: [(number | null)[], (number | null)[]];
  refused: [(number | null)[], (number | null)[]];
}

/** The comparison chart's series from two analyses at the same bucket width. */
export function comparisonSeries(
  mine: LogAnalysis,
  theirs: LogAnalysis,
  labels: [string, string],
): ComparisonSeries {
  const byOffset = [rowsByOffset(mine.windows), rowsByOffset(theirs.windows)] as const;
  const t = [...new Set([...byOffset[0].keys(), ...byOffset[1].keys()])].sort((a, b) => a - b);
  const pick = (rows: Map<number, WindowRow>, f: (w: WindowRow) => number | null) =>
    t.map((at) => {
      const row = rows.get(at);
      return row === undefined ? null : f(row);
    });
  const okRate = (w: WindowRow) => round((1000 * (w.requests - w.failed)) / w.durationMs);
  const refused = (w: WindowRow) => w.throttled + w.overloaded || null;
  return {
    labels,
    t,
    ok: [pick(byOffset[0], okRate), pick(byOffset[1], okRate)],
    refused: [pick(byOffset[0], refused), pick(byOffset[1], refused)],
  };
}

/** A table of both runs' totals: requests, ok, ok/s, refusals and their share. */
export function comparisonHtml(runs: readonly [string, LogAnalysis][]): string {
  const head = ['run', 'requests', 'ok', 'ok/s', '429 + 503', 'refused'];
  const rows = runs.map(([label, a]) => {
    const t = a.totals;
    const refused = t.throttled + t.overloaded;
    const seconds = a.runs.activeS;
    return [
      label,
      String(t.requests),
      String(t.ok),
      seconds > 0 ? formatNumber(t.ok / seconds) : '-',
      String(refused),
      t.requests > 0 ? `${formatNumber((100 * refused) / t.requests)} %` : '-',
    ];
  });
  const cell = (c: string) => `<td>${h(c)}</td>`;
  const body = rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('');
  return `<section><h2>Compared</h2><p>The same server, one run after the other; ok/s over each run's own time.</p><table class="compare"><thead><tr>${head.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></section>`;
}

function rowsByOffset(rows: readonly WindowRow[]): Map<number, WindowRow> {
  return new Map(rows.filter((w) => w.offsetS >= 0).map((w) => [round(w.offsetS), w]));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
