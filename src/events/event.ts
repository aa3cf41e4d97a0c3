import type { SignalKind } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** What a {@link ControlEvent} records. */
export type ControlEventType =
  /** An outcome was fed back (one per response or failure). */
  | 'sample'
  /** The concurrency limit changed. */
  | 'limit'
  /** The pacing rate changed. */
  | 'rate'
  /** The scope was paused by the server (Retry-After, quota spent). */
  | 'pause'
  /** The breaker changed state. */
  | 'breaker'
  /** A block page or captcha was seen: rotate the session; speed is unchanged. */
  | 'blocked'
  /** A soft-throttling detector raised or cleared an alarm. */
  | 'alarm'
  /** An idle scope was evicted from the registry. */
  | 'evict'
  /** The worker left or rejoined its fleet's shared state (`ratewise/redis`). */
  | 'fleet';

/** Breaker states. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * One decision of a scope controller — the time series ratewise logs,
 * analyses and plots. Serialises to one JSON line.
 */
export interface ControlEvent {
  /** Monotonic time of the decision, ms. */
  t: number;
  /** Wall-clock time of the decision, epoch ms. */
  wall: number;
  /** The scope key, e.g. `host:example.com`. */
  scope: string;
  /** What happened. */
  type: ControlEventType;
  /** Concurrency limit after the decision. */
  limit: number;
  /** Pacing rate after the decision in requests/s; `null` when unpaced. */
  rate: number | null;
  /** Requests in flight in the scope. */
  inflight: number;
  /** Requests waiting for admission in the scope. */
  queued: number;
  /** Short cause of the decision, e.g. `429`, `+1 per round trip`, `retry-after 2000ms`. */
  reason: string;
  /** The signal that caused it, for samples and the decisions they trigger. */
  signal?: SignalKind;
  /** HTTP status of the sampled response. */
  status?: number;
  /** Round-trip time of the sampled request, ms. */
  rttMs?: number;
  /** Breaker state after the decision. */
  breaker?: BreakerState;
  /** Per-phase timings of the sampled request, when the HTTP client measured them. */
  timings?: PhaseTimings;
}

/** Receives control events. Must not throw and should be cheap; buffer I/O. */
export type EventSink = (event: ControlEvent) => void;
