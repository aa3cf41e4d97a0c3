import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { LogAnalyzerOptions } from '../analyze/log-analyzer.js';
import { analyzeLog } from '../analyze/read-log.js';
import { lineUse, requireUsable } from '../analyze/unusable-log.js';
import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionError } from '../errors.js';
import { check, given, hasMethods, required } from '../option-rules.js';
import { definedOnly, defineOptions } from '../option-spec.js';
import { loadChartAssets } from './assets.js';
import { type CompareRun, comparisonSeries } from './comparison.js';
import { type ReportMeta, renderReportHtml } from './html.js';
import { buildReportData, chartBucketS } from './report-data.js';

/** Options of {@link writeReport}. */
export interface WriteReportOptions extends Omit<LogAnalyzerOptions, 'windowS'> {
  /** The log to read (a path: it is read twice, once per resolution). */
  log: string;
  /** The HTML file to write (its folder is created). */
  out: string;
  /** Window of the summary table, s. @default 10 */
  windowS?: number;
  /** Page title. @default the log's file name */
  title?: string;
  /** Where "generated at" comes from (`wallNow()`). @default systemClock */
  clock?: Clock;
  /**
   * Another run of the same job to show beside this one (the demo's naive
   * run): a table of both runs' totals and a chart of both on seconds from
   * each run's start.
   */
  compare?: CompareRun;
}

/** What {@link writeReport} wrote. */
export interface WrittenReport {
  /** The HTML file. */
  path: string;
  /** Its size, bytes. */
  bytes: number;
  /** Points per chart series. */
  points: number;
  /** Bucket width of the charts, s. */
  bucketS: number;
}

const OWNER = 'writeReport';
const isPath = (value: unknown) => typeof value === 'string' && value !== '';
const readOptions = defineOptions<WriteReportOptions>()(OWNER, {
  log: required<string>('a non-empty path', isPath),
  out: required<string>('a non-empty path', isPath),
  windowS: given(),
  title: check('a string', (value): value is string => typeof value === 'string'),
  clock: check('a Clock', hasMethods<Clock>('wallNow'), systemClock),
  compare: given(),
  // Checked by LogAnalyzer, before the log is read.
  baseline: given(),
  decay: given(),
  sampleSize: given(),
});

/**
 * Writes a self-contained HTML report of a log. The log is streamed twice:
 * once at the summary's window (`windowS`, the same analysis as
 * `ratewise analyze`), once at the chart resolution — one-second buckets,
 * widened so each series keeps at most 1 500 points (`MAX_CHART_POINTS`) —
 * so the file stays small however long the run: 52 KB of uPlot, at most
 * 1 500 points × 9 series, 500 alarm markers and a 300-row table (a 10-minute
 * log gives ~90 KB, a 6-hour 433 000-line log 141 KB). `log`, `out`,
 * `title` and `clock` are checked here; the analysis options by
 * `LogAnalyzer`, before the log is read. A log with no usable line
 * rejects with `UnusableLogError` and writes nothing.
 */
export async function writeReport(options: WriteReportOptions): Promise<WrittenReport> {
  const { log, out, title, clock, windowS, compare, ...rest } = readOptions(options);
  const analyzer = definedOnly(rest);
  if (compare !== undefined) {
    requireText('compare.log', compare?.log);
    requireText('compare.label', compare?.label);
  }
  const summary = await analyzeLog(
    log,
    windowS === undefined ? analyzer : { ...analyzer, windowS },
  );
  requireUsable(lineUse(summary), log);
  const bucketS = chartBucketS(summary.span?.durationS ?? 0);
  const chart =
    bucketS === summary.windowS
      ? summary
      : await analyzeLog(log, { ...analyzer, windowS: bucketS });
  const data = buildReportData(chart);
  const meta: ReportMeta = {
    title: title ?? basename(log),
    generatedAt: new Date(clock.wallNow()).toISOString(),
  };
  if (compare) {
    const other = await analyzeLog(compare.log, { ...analyzer, windowS: bucketS });
    requireUsable(lineUse(other), compare.log);
    data.comparison = comparisonSeries(chart, other, ['ratewise', compare.label]);
    meta.compared = [
      ['ratewise', summary],
      [compare.label, other],
    ];
  }
  const html = renderReportHtml(summary, data, loadChartAssets(), meta);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, html);
  return { path: out, bytes: Buffer.byteLength(html), points: data.series.t.length, bucketS };
}

function requireText(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') {
    const what = name.endsWith('label') ? 'a non-empty string' : 'a non-empty path';
    throw InvalidOptionError.invalid(OWNER, name, value, what);
  }
}
