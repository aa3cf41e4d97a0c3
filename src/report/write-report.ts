import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { LogAnalyzerOptions } from '../analyze/log-analyzer.js';
import { analyzeLog } from '../analyze/read-log.js';
import { loadChartAssets } from './assets.js';
import { renderReportHtml } from './html.js';
import { buildReportData, chartBucketS } from './report-data.js';

/** Options of {@link writeReport}. */
export interface WriteReportOptions extends Omit<LogAnalyzerOptions, 'windowS'> {
  /** The log to read (a path: it is read twice, once per resolution). */
  log: string;
  /** The HTML file to write. */
  out: string;
  /** Window of the summary table, s. @default 10 */
  windowS?: number;
  /** Page title. @default the log's file name */
  title?: string;
  /** When the report was made, ISO 8601. @default now */
  generatedAt?: string;
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

/**
 * Writes a self-contained HTML report of a log. The log is streamed twice:
 * once at the summary's window (`windowS`, the same analysis as
 * `ratewise analyze`), once at the chart resolution — one-second buckets,
 * widened so each series keeps at most 1 500 points (`MAX_CHART_POINTS`) —
 * so the file stays small however long the run: 52 KB of uPlot, at most
 * 1 500 points × 9 series, 500 alarm markers and a 300-row table (a 10-minute
 * log gives ~90 KB, a 6-hour 433 000-line log 141 KB).
 */
export async function writeReport(options: WriteReportOptions): Promise<WrittenReport> {
  const { log, out, title, generatedAt, windowS, ...analyzer } = options;
  const summary = await analyzeLog(
    log,
    windowS === undefined ? analyzer : { ...analyzer, windowS },
  );
  const bucketS = chartBucketS(summary.span?.durationS ?? 0);
  const chart =
    bucketS === summary.windowS
      ? summary
      : await analyzeLog(log, { ...analyzer, windowS: bucketS });
  const data = buildReportData(chart);
  const html = renderReportHtml(summary, data, loadChartAssets(), {
    title: title ?? basename(log),
    generatedAt: generatedAt ?? new Date().toISOString(),
  });
  await writeFile(out, html);
  return { path: out, bytes: Buffer.byteLength(html), points: data.series.t.length, bucketS };
}
