import type { PhaseMedians } from '../detect/phase-diagnosis.js';

/**
 * One window of a log: what finished in it and what the controller did.
 * Numbers that could not be measured (no latencies, no events) are `null`,
 * so every row has the same keys in JSON and charts draw gaps.
 */
export interface WindowRow {
  /** Start of the window, ms on the log's axis (epoch ms for wall-clock logs). */
  start: number;
  /** Seconds from the first record of the log to the window's start (negative for a window before it). */
  offsetS: number;
  /**
   * Time the row covers, ms: one window; shorter for the last, which ends at
   * the last record; a multiple of the window for a run of empty windows (a stall).
   */
  durationMs: number;
  /** Requests that finished in the window. */
  requests: number;
  /** Finished requests per second. */
  rps: number;
  /** Latency percentiles of the window, ms (nearest rank over at most the sample bound). */
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** 429s and vendor forms of "too many requests". */
  throttled: number;
  /** 503s and other "overloaded" answers. */
  overloaded: number;
  /** All failed requests (including the two above). */
  failed: number;
  /** Crawl-wide concurrency limit at the end of the window (ratewise events only). */
  limit: number | null;
  /** Highest and mean in-flight count seen in the window's events. */
  inflightMax: number | null;
  inflightMean: number | null;
  /** Highest queue length seen in the window's events. */
  queuedMax: number | null;
  /** Crawl-wide pacing rate at the end of the window, req/s (`null`: unpaced or unknown). */
  rate: number | null;
  /** Median per-phase durations, when the requests carried timings. */
  phases: PhaseMedians | null;
  /** Alarms raised in the window (replayed detectors and the controller's own `alarm` events). */
  alarms: number;
}
