import type { BimodalResult } from '../detect/bimodal.js';
import type { PhaseDiagnosis } from '../detect/phase-diagnosis.js';
import type { RampResult } from '../detect/ramp.js';
import type { AlarmRecord } from './alarm-replay.js';
import type { Diagnosis } from './diagnosis.js';
import type { LineFormat } from './records.js';
import type { RunsSummary } from './runs.js';
import type { WindowRow } from './window-row.js';

/** How the lines of a log were read. */
export interface LineCounts {
  /** Lines read. */
  total: number;
  /** Empty lines and `#` comments. */
  blank: number;
  /** Lines that could not be understood, or whose time lies over a year from the first record's (counted, never fatal). */
  malformed: number;
  /** Crawl results for URLs never sent (`attempts: 0`): lines, not requests. */
  unsent: number;
  /** Run-start lines (one per run a `jsonlSink` wrote). */
  runStarts: number;
  /** Lines of each format. */
  byFormat: Record<LineFormat, number>;
}

/** A rejected line: its number (1-based) and why. */
export interface MalformedLine {
  line: number;
  reason: string;
}

/** Whole-log figures. */
export interface LogTotals {
  /** Finished requests (sample events, results, plain lines). */
  requests: number;
  /** Requests without a time (left out of windows and alarms). */
  untimed: number;
  /** Timed requests whose window had already closed (too far out of order). */
  late: number;
  /** Requests per second over the time the runs cover (gaps between runs left out). */
  rps: number;
  /** Requests answered 2xx/3xx (classified `ok`): with retries, one per URL that succeeded. */
  ok: number;
  /** 429s and vendor forms of "too many requests" (retried ones included). */
  throttled: number;
  /** 503s and other "overloaded" answers. */
  overloaded: number;
  /** Requests that did not succeed, the two above included. */
  failed: number;
  /** Latency percentiles of the whole log, ms (`null` without latencies). */
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** Whether the percentiles are over every latency (`false`: over a uniform sample of them). */
  exactPercentiles: boolean;
  /** The latency baseline p95 compared against, ms: captured, or learned from the fastest window. */
  baselineP95: number | null;
}

/** The time a log covers, on its axis (epoch ms for wall-clock logs). */
export interface LogSpan {
  start: number;
  end: number;
  durationS: number;
}

/** Everything `ratewise analyze` reports, as one serialisable object. */
export interface LogAnalysis {
  lines: LineCounts;
  /** The first few rejected lines, to show what went wrong. */
  malformedExamples: MalformedLine[];
  /** `null` when no line carried a time. */
  span: LogSpan | null;
  /** The runs the log holds and how they were laid on its time axis. */
  runs: RunsSummary;
  totals: LogTotals;
  /** Window length used, s. */
  windowS: number;
  windows: WindowRow[];
  alarms: AlarmRecord[];
  /** Per-phase verdict, the end of the log against its start (`null` without timings). */
  phases: PhaseDiagnosis | null;
  ramp: RampResult;
  bimodal: BimodalResult;
  diagnosis: Diagnosis;
}
