import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { LogAnalyzerOptions } from '../analyze/log-analyzer.js';
import { analyzeLog } from '../analyze/read-log.js';
import { lineUse, requireUsable } from '../analyze/unusable-log.js';
import { type Clock, systemClock } from '../clock.js';
import { InvalidOptionError } from '../errors.js';
import { rejectUnknownOptions } from '../options.js';
import { loadChartAssets } from './assets.js';
import { renderReportHtml } from './html.js';
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
const KNOWN = ['log', 'out', 'windowS', 'title', 'clock', 'baseline', 'decay', 'sampleSize'];

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
  if (typeof options !== 'object' || options === null) {
    throw InvalidOptionError.invalid(OWNER, 'options', options, 'an object');
  }
  rejectUnknownOptions(OWNER, options, KNOWN);
  const { log, out, title, clock = systemClock, windowS, ...analyzer } = options;
  requireText('log', log);
  requireText('out', out);
  if (title !== undefined && typeof title !== 'string') {
    throw InvalidOptionError.invalid(OWNER, 'title', title, 'a string');
  }
  if (typeof clock?.wallNow !== 'function') {
    throw InvalidOptionError.invalid(OWNER, 'clock', clock, 'a Clock');
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
  const html = renderReportHtml(summary, data, loadChartAssets(), {
    title: title ?? basename(log),
    generatedAt: new Date(clock.wallNow()).toISOString(),
  });
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, html);
  return { path: out, bytes: Buffer.byteLength(html), points: data.series.t.length, bucketS };
}

function requireText(name: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') {
    throw InvalidOptionError.invalid(OWNER, name, value, 'a non-empty path');
  }
}
