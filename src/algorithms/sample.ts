import type { Signal } from '../signal.js';
import type { ClockReading } from './clock-reading.js';

/**
 * One measurement fed to the limit algorithms: when a request was sent, when
 * its outcome arrived, how busy the scope was, and what the outcome said.
 * Times are monotonic milliseconds from the controller's clock; algorithms
 * never read a clock themselves.
 */
export interface Sample {
  /** When the request was sent. */
  sentAt: number;
  /** When its outcome was observed (`at - sentAt` is the round-trip time). */
  at: number;
  /** Requests in flight in the scope when this one was sent, itself included. */
  inflight: number;
  /**
   * For a refusal: it was sent at more in flight than any recently accepted
   * request, so it was refused for its concurrency (a concurrency cap), not
   * for the rate. Absent when unknown (read as a refusal for the rate).
   */
  overConcurrency?: boolean;
  /**
   * A concurrency cap read from the first refusal of an unpaced slow start is
   * on trial: one refusal cannot tell a cap from a rate limit. `begins`: this
   * refusal (over concurrency) sets it, and the concurrency limit checks it
   * soon (one more in flight); `refuted`: this outcome shows a rate limit — a
   * refusal at no more in flight than the cap sent after the trial began, or
   * a success past it sent before — and the rate reads its next refusal as of
   * the one that began the trial; `held`: a success past the cap that timing
   * noise explains (see `CapTrial`), which leaves the cap on trial;
   * `lowered`: a refusal (over concurrency) under timing noise that met the
   * cap, which is one lower. The concurrency limit also forgets the cap when
   * any other success comes past it.
   */
  capTrial?: 'begins' | 'refuted' | 'held' | 'lowered';
  /**
   * Requests of the scope still in flight when this outcome arrived (it
   * excluded): sent after it, they are not yet counted in the quota its
   * headers publish. Absent when unknown (read as none).
   */
  outstanding?: number;
  /** The classified outcome. */
  signal: Signal;
}

/** An algorithm that decides a concurrency limit (how many requests may be in flight). */
export interface ConcurrencyLimit {
  /** The current limit, an integer >= 1. */
  readonly limit: number;
  /** Updates the limit from one sample and returns the new limit. */
  onSample(sample: Sample): number;
  /**
   * What it learned, as plain JSON for a store, times as wall-clock epoch ms
   * (`clocks` pairs the clocks now). Optional with {@link ConcurrencyLimit.restore}:
   * an algorithm without them starts afresh whenever its scope is created.
   */
  snapshot?(clocks: ClockReading): Record<string, unknown>;
  /**
   * Resumes a fresh algorithm from a {@link ConcurrencyLimit.snapshot} taken
   * in this process or another; `clocks` pairs this process's clocks now.
   * Throws an `InvalidOptionError` naming a malformed field.
   */
  restore?(state: Readonly<Record<string, unknown>>, clocks: ClockReading): void;
}

/**
 * What a soft-throttling alarm asks of the rate: `slow-down` (a multiplicative
 * cut from what the server is serving), `futile` (slowing down did not help:
 * undo the alarm's cuts), `cleared` (latency is healthy again: the ceiling
 * goes back to a little under what was served when the alarm fired, or the
 * lower rate stands as the ceiling to probe up from).
 */
export type AlarmAction = 'slow-down' | 'futile' | 'cleared';

/** An algorithm that decides a sending rate in requests per second. */
export interface RatePolicy {
  /** Current rate in requests/s; `Infinity` means unpaced. */
  readonly rate: number;
  /** Monotonic ms before which nothing may be sent (a server-requested pause); 0 when none. */
  readonly pausedUntil: number;
  /** Whether the rate is above its learned ceiling on purpose (a refusal then is the rate's). */
  readonly probing?: boolean;
  /** Updates the rate from one sample (including its Retry-After and quota). */
  onSample(sample: Sample): void;
  /** Reacts to a soft-throttling alarm at `at` (optional: policies without it ignore alarms). */
  onAlarm?(at: number, action: AlarmAction): void;
  /**
   * What it learned, as plain JSON for a store, times as wall-clock epoch ms
   * (`clocks` pairs the clocks now). Optional with {@link RatePolicy.restore}.
   */
  snapshot?(clocks: ClockReading): Record<string, unknown>;
  /** Resumes a fresh policy from a {@link RatePolicy.snapshot} taken in this process or another. */
  restore?(state: Readonly<Record<string, unknown>>, clocks: ClockReading): void;
}

/** Whether a sample is the server refusing (as opposed to a timeout or a reset). */
export function isRefusal(sample: Sample): boolean {
  const { kind } = sample.signal;
  return kind === 'throttled' || kind === 'overloaded';
}
