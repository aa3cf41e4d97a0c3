import type { ControlEvent } from '../events/event.js';
import type { PhaseTimings } from '../timings.js';

/**
 * One finished request, read from any log format `analyze` understands. Time
 * is on the log's axis: epoch ms for ISO-stamped lines and crawl results,
 * and for ratewise events their monotonic `t` shifted by the first event's
 * `wall − t` (so differences stay monotonic and labels read as wall time).
 */
export interface RequestRecord {
  /** When it finished, ms on the log's time axis; absent when the line carried no time. */
  at?: number;
  /** Round-trip time, ms, when known. */
  latencyMs?: number;
  /** HTTP status, when there was a response. */
  status?: number;
  /** The classified outcome (`ok`, `throttled`, …), when the log recorded one. */
  signal?: string;
  /** Per-phase timings, when the client measured them. */
  timings?: PhaseTimings;
  /** The host (or scope) it went to, when known. */
  host?: string;
  /** Whether the line reported a failure (an error, or a non-ok signal). */
  failed: boolean;
}

/** A run-start line: the run's id and its wall-clock start (epoch ms, `NaN` when absent). */
export interface RunMark {
  id: string;
  wall: number;
}

/** How a line of a log was understood. */
export type ParsedLine =
  /** A ratewise control event (`crawl --log`). */
  | { kind: 'event'; event: ControlEvent }
  /** Where a run begins in a log that several runs append to (a `jsonlSink`'s first line). */
  | { kind: 'run'; run: RunMark }
  /** A crawl result (`crawl --out`): one line per URL. */
  | { kind: 'result'; request: RequestRecord }
  /** A plain `ISO8601 url latency_ms [status]` request-log line. */
  | { kind: 'plain'; request: RequestRecord }
  /** An empty line or a `#` comment. */
  | { kind: 'blank' }
  /** A crawl result for a URL that was never sent (`attempts: 0`): not a request. */
  | { kind: 'unsent' }
  /** Anything else, with the reason it was rejected. */
  | { kind: 'malformed'; reason: string };

/** The formats a line can be in (the `kind`s that carry data). */
export type LineFormat = 'event' | 'result' | 'plain';

/** A line that carries data: an event, a crawl result or a plain line. */
export type DataLine = Extract<ParsedLine, { kind: LineFormat }>;

/**
 * Whether a request was throttled: a 429, or a vendor form the classifier called `throttled` (not a
 * 503: that counts as one, so the 429 and 503 columns never count a request twice — S3's
 * `SlowDown` is a 503 classified `throttled`).
 */
export function isThrottled(request: RequestRecord): boolean {
  return request.status === 429 || (request.signal === 'throttled' && request.status !== 503);
}

/** Whether a request met an overloaded origin: a 503, or a form the classifier called `overloaded` (not a 429). */
export function isOverloaded(request: RequestRecord): boolean {
  return request.status === 503 || (request.signal === 'overloaded' && request.status !== 429);
}

/**
 * Failures other than 429s and 503s: the `failed` count (which includes both)
 * less the two. What `analyze` and `report` show beside the 429 and 503 counts.
 */
export function otherFailures(counts: {
  failed: number;
  throttled: number;
  overloaded: number;
}): number {
  return Math.max(0, counts.failed - counts.throttled - counts.overloaded);
}

/** Whether a request succeeded: classified `ok`, or (without a classification) answered 2xx/3xx. */
export function isOk(request: RequestRecord): boolean {
  if (request.signal !== undefined) return request.signal === 'ok';
  return !request.failed && request.status !== undefined && request.status < 400;
}
