import type { AlarmRecord } from '../analyze/alarm-replay.js';
import type { LogAnalysis } from '../analyze/log-analysis.js';
import { isWallClock } from '../analyze/wall-clock.js';
import type { WindowRow } from '../analyze/window-row.js';
import type { ComparisonSeries } from './comparison.js';

/** Most points per chart series; longer logs get wider buckets. */
export const MAX_CHART_POINTS = 1500;
/** Most alarm markers drawn (the summary still counts them all). */
const MAX_CHART_ALARMS = 500;

/**
 * The time series a report draws, one value per bucket, all arrays as long
 * as `t`. `null` is a gap (nothing measured in the bucket).
 */
export interface ChartSeries {
  /** Bucket starts: unix seconds when `wallClock`, else seconds from the start of the log. */
  t: number[];
  /** Finished requests per second. */
  rps: number[];
  /** Latency percentiles, ms. */
  p50: (number | null)[];
  p95: (number | null)[];
  /** 429s and 503s in the bucket (`null` for none, so no marker is drawn). */
  throttled: (number | null)[];
  overloaded: (number | null)[];
  /** Crawl-wide concurrency limit, highest in flight, pacing rate (ratewise events only). */
  limit: (number | null)[];
  inflight: (number | null)[];
  rate: (number | null)[];
}

/** An alarm marker on the charts' time axis. */
export interface ChartAlarm {
  /** Same unit as `ChartSeries.t`. */
  t: number;
  source: AlarmRecord['source'];
  transition: AlarmRecord['transition'];
  detail: string;
}

/** Everything the report's page script needs, serialised into the HTML. */
export interface ReportData {
  /** Whether `t` is unix seconds (draw dates) or seconds from the start. */
  wallClock: boolean;
  /** Bucket width of the series, s. */
  bucketS: number;
  series: ChartSeries;
  alarms: ChartAlarm[];
  /** Alarms left off the charts beyond {@link MAX_CHART_ALARMS}. */
  alarmsOmitted: number;
  /** Whether any bucket has controller state (the controller chart is drawn only then). */
  hasControl: boolean;
  /** Both runs side by side, when the report compares this run with another. */
  comparison?: ComparisonSeries;
}

/**
 * The bucket width for charts of a log lasting `durationS`: one second, or
 * wider so no series exceeds {@link MAX_CHART_POINTS} (rounded up to a whole
 * second, or to a multiple of 60 s beyond ten minutes).
 */
export function chartBucketS(durationS: number): number {
  const raw = Math.max(1, durationS / (MAX_CHART_POINTS - 1));
  const whole = Math.ceil(raw);
  return whole > 600 ? Math.ceil(whole / 60) * 60 : whole;
}

/**
 * Turns windows of a chart-resolution analysis into the report's series and
 * markers. A row spanning a stall (a run of empty buckets) gives two points,
 * at its first and its last bucket, so the chart stays flat across it.
 */
export function buildReportData(chart: LogAnalysis): ReportData {
  const start = chart.span?.start ?? 0;
  const wallClock = isWallClock(start);
  const time = (at: number) => (wallClock ? at / 1000 : (at - start) / 1000);
  const bucketMs = chart.windowS * 1000;
  const rows = chart.windows.flatMap((w) =>
    w.durationMs > bucketMs ? [w, { ...w, start: w.start + w.durationMs - bucketMs }] : [w],
  );
  const pick = <T>(f: (w: WindowRow) => T) => rows.map(f);
  const series: ChartSeries = {
    t: pick((w) => time(w.start)),
    rps: pick((w) => round(w.rps)),
    p50: pick((w) => w.p50),
    p95: pick((w) => w.p95),
    throttled: pick((w) => w.throttled || null),
    overloaded: pick((w) => w.overloaded || null),
    limit: pick((w) => w.limit),
    inflight: pick((w) => w.inflightMax),
    rate: pick((w) => (w.rate === null ? null : round(w.rate))),
  };
  const alarms = chart.alarms.slice(0, MAX_CHART_ALARMS).map((a) => ({
    t: time(a.at),
    source: a.source,
    transition: a.transition,
    detail: a.detail,
  }));
  return {
    wallClock,
    bucketS: chart.windowS,
    series,
    alarms,
    alarmsOmitted: chart.alarms.length - alarms.length,
    hasControl: rows.some((w) => w.inflightMax !== null || w.limit !== null),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
