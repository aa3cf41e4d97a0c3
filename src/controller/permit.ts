import type { Signal } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** Extra measurements that accompany an outcome. */
export interface OutcomeDetails {
  /** Per-phase timings measured by the HTTP client. */
  timings?: PhaseTimings;
}

/**
 * Admission to send one request. Exactly one of `report` or `release` must be
 * called when the request is over; later calls do nothing.
 */
export interface Permit {
  /** Monotonic ms at which admission was granted (the request's send time). */
  readonly sentAt: number;
  /** Feeds the request's classified outcome back to the controller(s) and frees the slot. */
  report(signal: Signal, details?: OutcomeDetails): void;
  /** Frees the slot without an outcome: the request was not sent, or the caller cancelled it. */
  release(): void;
}
